import type { Env } from "../../../src/env.ts";
import type { CounterAnswer } from "../../../src/core/limiter/index.ts";
import type { HitBatch } from "../../../src/durable-objects/counter-object.ts";
import { Counter, MemoryCounterStore } from "../../../src/core/limiter/index.ts";

/**
 * Counter objects run in memory on a clock the test drives: the same Counter the Durable Object
 * runs, called as CounterObject.decide is, so the gateway's own counting (deny cache, lease,
 * coalescer, fallback) meets them exactly as it meets the real ones, in any number of gateways.
 * It records calls in flight (per counter: two at once for one counter is a coalescing failure).
 * `overloaded`: a call made while another is in flight to the same object fails, as a Durable
 * Object past its capacity does. `answered`: runs after the object decided, before its answer
 * arrives (the answer's way back; a promise it returns delays the answer). `fail` (set at any time): every call fails. `restart()`: every
 * object loses its memory and reloads from storage, as after an eviction.
 */
export function memoryLimiter(now: () => number, latency?: () => Promise<void>, options: { overloaded?: boolean; answered?: () => unknown } = {}) {
  const store = new MemoryCounterStore();
  let counters = new Map<string, Counter>();
  let calls = 0;
  let inFlight = 0;
  let maxInFlight = 0;
  /** Counters with a call in flight; a second call for one of them is a coalescing failure. */
  const busy = new Set<string>();
  let overlapping = 0;
  const objectsInFlight = new Set<string>();
  const faults = { fail: false };
  const namespace = {
    jurisdiction: () => namespace,
    getByName: (object: string) => ({
      async decide(batches: HitBatch[]): Promise<CounterAnswer[]> {
        calls++;
        if (faults.fail) throw new Error("counter object unreachable (test)");
        if (options.overloaded && objectsInFlight.has(object)) throw new Error("Durable Object is overloaded. Too many requests queued.");
        objectsInFlight.add(object);
        maxInFlight = Math.max(maxInFlight, ++inFlight);
        const names = batches.map((batch) => `${object}/${batch.key ?? ""}`);
        for (const name of names) {
          if (busy.has(name)) overlapping++;
          else busy.add(name);
        }
        await latency?.();
        inFlight--;
        objectsInFlight.delete(object);
        for (const name of names) busy.delete(name);
        const answers = batches.map((batch) => {
          const name = `${object}/${batch.key ?? ""}`;
          let counter = counters.get(name);
          if (!counter) counters.set(name, (counter = new Counter(store, name)));
          const { verdicts, lease } = counter.decide(batch.limit, batch.hits, now(), batch);
          return lease ? { verdicts, lease } : { verdicts };
        });
        // A promise delays the answer (an answer that arrives after the caller gave up is lost to it).
        const way = options.answered?.();
        if (way instanceof Promise) await way;
        return answers;
      },
    }),
  };
  return {
    env: { COUNTERS: namespace } as unknown as Env,
    calls: () => calls,
    maxInFlight: () => maxInFlight,
    overlapping: () => overlapping,
    faults,
    restart: () => {
      counters = new Map();
    },
  };
}
