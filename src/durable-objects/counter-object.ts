import { DurableObject } from "cloudflare:workers";
import { Counter, FixedWindow, verdictOf } from "../core/limiter/index.ts";
import type { Algorithm, CounterAnswer, CounterStore, FallbackReport, Inspection, LeaseRequest, Limit, StoredCounter } from "../core/limiter/index.ts";

/** Requests for one counter that arrived together at an isolate, decided in one call. */
export interface HitBatch {
  /**
   * Which counter of this object: "" when the object holds one counter (its name says which),
   * otherwise the counter's key within the object.
   */
  readonly key?: string;
  readonly limit: Limit;
  readonly algorithm?: Algorithm;
  /** How many requests, decided in order. */
  readonly hits: number;
  /**
   * Admissions the isolate made on its own while this object did not answer (LocalFallback), by
   * age, recorded before the hits are decided, so the object counts them too (each report once).
   */
  readonly recorded?: readonly FallbackReport[];
  /** Which isolate calls, units it would lease, and a lease it gives back (src/core/limiter/lease.ts). */
  readonly lease?: LeaseRequest;
  /** The call's id (unique per isolate), which a later fallback report may name (src/core/limiter/fallback.ts). */
  readonly call?: string;
}

/** Most requests one call decides; a gateway batch is bounded by what arrives during one call. */
export const MAX_BATCH = 100_000;

/** Storage key of a counter: one key per counter, so an object can hold several. */
const PREFIX = "ledger";
const storageKey = (key: string) => (key === "" ? PREFIX : `${PREFIX}:${key}`);

/**
 * Counter objects: one exact sliding-window Counter (src/core/limiter/counter.ts) per key, persisted in
 * this object's SQLite KV storage. Each `decide` runs synchronously, so concurrent calls are
 * serialized by the object and can never both take the last unit. The object's only other job is
 * the alarm that lets each counter settle (snapshot when idle, clean-up when stale).
 */
export class CounterObject extends DurableObject {
  readonly #counters = new Map<string, Counter>();
  /**
   * Counters in storage and not in memory, with when each needs settling (its clean-up once
   * stale). Known only once this instance has listed its storage (its first alarm, since a restart
   * may have left any); after that every alarm settles from memory and this map, and reads no
   * stored value it does not need.
   */
  #dormant: Map<string, number> | undefined;
  /** Scheduled alarm: a time, null when none, undefined when unknown (a fresh instance). */
  #alarmAt: number | null | undefined;
  /** Only under the development setting LIMITER_ALGORITHM=fixed-window; memory only. */
  readonly #fixed = new Map<string, FixedWindow>();
  readonly #store: CounterStore = {
    get: (key) => this.ctx.storage.kv.get<StoredCounter>(storageKey(key)),
    put: (key, value) => this.ctx.storage.kv.put(storageKey(key), value),
    delete: (key) => void this.ctx.storage.kv.delete(storageKey(key)),
  };

  /** The clock; tests replace it through `runInDurableObject` to move time. */
  now: () => number = () => Date.now();

  /**
   * The object's one way to count: several counters' batches in one call (what the gateway sends:
   * every request for this object that queued in an isolate while its last call was in flight),
   * each decided in order at one instant, exactly as that many single requests one after another
   * would be. One call, one storage commit and at most one alarm write for them all.
   */
  decide(batches: readonly HitBatch[]): CounterAnswer[] {
    if (!Array.isArray(batches) || batches.length < 1) throw new RangeError("batches must be a non-empty list");
    let total = 0;
    for (const { hits, lease } of batches) {
      // No hits only with a lease: one renewed or given back in the background (lease.ts).
      const least = lease ? 0 : 1;
      if (!Number.isInteger(hits) || hits < least || hits > MAX_BATCH) throw new RangeError(`hits must be a whole number from ${least} to ${MAX_BATCH}`);
      total += hits;
    }
    if (total > MAX_BATCH) throw new RangeError(`a call decides at most ${MAX_BATCH} hits`);
    const now = this.now();
    let settleAt = Number.POSITIVE_INFINITY;
    const answers = batches.map((batch): CounterAnswer => {
      const answer = this.#decideOne(batch, now);
      if (answer.settleAt !== undefined) settleAt = Math.min(settleAt, answer.settleAt);
      return answer.lease ? { verdicts: answer.verdicts, lease: answer.lease } : { verdicts: answer.verdicts };
    });
    // Not awaited: the output gate holds this reply until the writes are durable, and writes made
    // by concurrent calls coalesce into one batch. An alarm already due no later than the
    // earliest settle time serves it too (the alarm settles every counter), so most calls write
    // no alarm at all.
    if (settleAt !== Number.POSITIVE_INFINITY && !(typeof this.#alarmAt === "number" && this.#alarmAt <= settleAt)) this.#arm(settleAt);
    return answers;
  }

  /** One counter's batch; `settleAt` when it wrote storage (the counter must settle by then). */
  #decideOne(
    { key = "", limit, algorithm = "sliding-window", hits, recorded = [], lease, call }: HitBatch,
    now: number,
  ): CounterAnswer & { settleAt?: number } {
    if (algorithm === "fixed-window") {
      let fixed = this.#fixed.get(key);
      if (!fixed) this.#fixed.set(key, (fixed = new FixedWindow(limit)));
      return { verdicts: Array.from({ length: hits }, () => verdictOf(fixed.hit(now), now)) };
    }
    const {
      verdicts,
      lease: granted,
      wrote,
      settleAt,
    } = this.#counter(key).decide(limit, hits, now, { recorded, ...(lease && { lease }), ...(typeof call === "string" && { call }) });
    return { verdicts, ...(granted && { lease: granted }), ...(wrote && { settleAt }) };
  }

  /**
   * Reads one counter without recording a request, writing storage or arming an alarm (the admin
   * API's inspection). A counter not in memory is read from storage into a throwaway Counter, so
   * the object is left exactly as it was.
   */
  inspect({ key = "", limit }: { key?: string; limit: Limit }): Inspection {
    return (this.#counters.get(key) ?? new Counter(this.#store, key)).inspect(limit, this.now());
  }

  /** Lets every counter settle, then sleeps until the earliest one needs it again. */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    const now = this.now();
    let dormant = this.#dormant;
    if (!dormant) {
      // A fresh instance: whatever storage holds is settled through a Counter once.
      for (const [stored] of this.ctx.storage.kv.list({ prefix: PREFIX })) {
        const key = stored === PREFIX ? "" : stored.slice(PREFIX.length + 1);
        if (!this.#counters.has(key)) this.#counters.set(key, new Counter(this.#store, key));
      }
      this.#dormant = dormant = new Map();
    }
    let next = Number.POSITIVE_INFINITY;
    let stored = 0;
    for (const [key, counter] of this.#counters) {
      const at = counter.settle(now);
      if (at !== undefined) {
        stored++;
        next = Math.min(next, at);
      }
      // Settled or gone: storage holds it exactly, so memory keeps only the counters in use (an
      // object holds many identities' counters; they are reloaded when their next request comes).
      if (at === undefined || counter.quiet(now)) {
        this.#counters.delete(key);
        if (at !== undefined) dormant.set(key, at);
      }
    }
    // A dormant counter is exact in storage and unchanged since: once stale it is deleted, as its
    // own settle would.
    for (const [key, staleAt] of dormant) {
      if (staleAt <= now) {
        dormant.delete(key);
        this.#store.delete(key);
      } else {
        stored++;
        next = Math.min(next, staleAt);
      }
    }
    if (stored === 0) {
      // Nothing left that can matter: no storage, no alarm.
      await this.ctx.storage.deleteAll();
      return;
    }
    this.#arm(next);
  }

  #counter(key: string): Counter {
    let counter = this.#counters.get(key);
    if (!counter) {
      this.#counters.set(key, (counter = new Counter(this.#store, key)));
      this.#dormant?.delete(key);
    }
    return counter;
  }

  #arm(at: number): void {
    this.#alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }
}
