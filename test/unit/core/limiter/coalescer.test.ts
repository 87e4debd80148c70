import fc from "fast-check";
import { setImmediate as tick } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { Coalescer, SlidingWindow, verdictOf, type Verdict } from "../../../../src/core/limiter/index.ts";

/** A counter object behind a call that takes `latency` event-loop turns, recording its batches. */
function fakeObject(limit: { count: number; intervalMs: number }, latencies: () => number) {
  const window = new SlidingWindow(limit);
  const batches: number[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const send = async (items: readonly unknown[]): Promise<Verdict[]> => {
    const n = items.length;
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    batches.push(n);
    for (let i = latencies(); i > 0; i--) await tick();
    inFlight--;
    // Decided when the call reaches the object, in order, as CounterObject.decide does.
    return Array.from({ length: n }, () => verdictOf(window.hit(0), 0));
  };
  return { send, batches, window, maxInFlight: () => maxInFlight };
}

const noTimeout = Number.POSITIVE_INFINITY;

/**
 * Time for tests without deadlines (`noTimeout`): a request then waits on the call ahead of it
 * alone, so arming a timer is a failure.
 */
const untimed = {
  now: () => 0,
  setTimeout: (): never => {
    throw new Error("a timer was armed although no call has a deadline");
  },
  clearTimeout: () => {},
};

/** Lets every pending promise continuation run (several event-loop turns). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await tick();
}

/**
 * A clock the test moves, with timers. `options` is what a Coalescer gets; it counts the timers
 * armed and fired through it, and the `sleep` calls the polling implementation made (it is
 * passed too, so that implementation runs against these tests and fails on the count, not on a
 * missing option). `after(ms)` is the object's own latency: not counted.
 */
function drivenClock() {
  let now = 0;
  let sequence = 0;
  const timers = new Map<number, { at: number; wake: () => void }>();
  const counts = { armed: 0, fired: 0, sleeps: 0 };
  const start = (wake: () => void, ms: number) => {
    timers.set(++sequence, { at: now + ms, wake });
    return sequence;
  };
  const after = (ms: number) => new Promise<void>((resolve) => start(resolve, ms));
  return {
    counts,
    after,
    now: () => now,
    /** Timers armed and not yet fired or cleared. */
    pending: () => timers.size,
    options: {
      now: () => now,
      setTimeout: (wake: () => void, ms: number) => {
        counts.armed++;
        return start(() => {
          counts.fired++;
          wake();
        }, ms);
      },
      clearTimeout: (timer: unknown) => void timers.delete(timer as number),
      sleep: (ms: number) => {
        counts.sleeps++;
        return after(ms);
      },
    },
    /** Moves time to `until`, firing each timer due on the way at its time, continuations running after each. */
    async runUntil(until: number): Promise<void> {
      for (;;) {
        await settle();
        let at = Number.POSITIVE_INFINITY;
        for (const timer of timers.values()) at = Math.min(at, timer.at);
        if (at > until) break;
        now = at;
        // Waking only settles a promise: nothing is added to the map while this loop runs.
        for (const [id, timer] of timers) {
          if (timer.at !== at) continue;
          timers.delete(id);
          timer.wake();
        }
      }
      now = until;
      await settle();
    },
  };
}

/** A queued request; most tests have one counter per object. */
type Item = { readonly counter: string };
const one: Item = { counter: "c" };

describe("Coalescer", () => {
  it("property: concurrent requests get, in arrival order, exactly the verdicts sequential calls would, from at most one call in flight", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 10 }),
        async (count, arrivalGaps, latencyDraws) => {
          let draw = 0;
          const object = fakeObject({ count, intervalMs: 1_000 }, () => latencyDraws[draw++ % latencyDraws.length]!);
          const coalescer = new Coalescer<Item, Verdict>(untimed);
          const pending: Promise<Verdict>[] = [];
          for (const gap of arrivalGaps) {
            for (let i = 0; i < gap; i++) await tick();
            pending.push(coalescer.join("k", one, noTimeout, object.send));
          }
          const verdicts = await Promise.all(pending);
          const sequential = new SlidingWindow({ count, intervalMs: 1_000 });
          expect(verdicts).toEqual(arrivalGaps.map(() => verdictOf(sequential.hit(0), 0)));
          expect(object.maxInFlight()).toBe(1);
          expect(object.batches.reduce((a, b) => a + b, 0)).toBe(arrivalGaps.length);
          expect(coalescer.size).toBe(0); // nothing left behind
        },
      ),
      { numRuns: 200, seed: 20261123 },
    );
  });

  it("a burst of 100 at once reaches the object as two calls: the first request, then everyone who queued behind it", async () => {
    const object = fakeObject({ count: 10, intervalMs: 1_000 }, () => 2);
    const coalescer = new Coalescer<Item, Verdict>(untimed);
    const verdicts = await Promise.all(Array.from({ length: 100 }, () => coalescer.join("k", one, noTimeout, object.send)));
    expect(object.batches).toEqual([1, 99]);
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(10);
  });

  it("property: with a local decider (a lease) between calls, every request still gets, in arrival order, exactly the sequential verdict", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
        async (count, arrivalGaps, latencyDraws, localDraws) => {
          let draw = 0;
          let localDraw = 0;
          const object = fakeObject({ count, intervalMs: 1_000 }, () => latencyDraws[draw++ % latencyDraws.length]!);
          // Decides on the object's own window when it can (a lease is units of that window); each
          // answer tagged so the test sees who decided.
          const local = () => (localDraws[localDraw++ % localDraws.length] ? { ...verdictOf(object.window.hit(0), 0), local: true } : undefined);
          const coalescer = new Coalescer<Item, Verdict & { local?: boolean }>(untimed);
          const pending: Promise<Verdict & { local?: boolean }>[] = [];
          for (const gap of arrivalGaps) {
            for (let i = 0; i < gap; i++) await tick();
            pending.push(coalescer.join("k", one, noTimeout, object.send, local));
          }
          const answers = await Promise.all(pending);
          const sequential = new SlidingWindow({ count, intervalMs: 1_000 });
          expect(answers.map(({ local: _, ...verdict }) => verdict)).toEqual(arrivalGaps.map(() => verdictOf(sequential.hit(0), 0)));
          const decidedLocally = answers.filter((a) => a.local).length;
          expect(object.batches.reduce((a, b) => a + b, 0) + decidedLocally).toBe(arrivalGaps.length);
          expect(object.maxInFlight()).toBeLessThanOrEqual(1);
          expect(coalescer.size).toBe(0);
        },
      ),
      { numRuns: 200, seed: 20261123 },
    );
  });

  it("requests queued behind the call that brings a lease are decided on it, in arrival order; only the rest are sent", async () => {
    const object = fakeObject({ count: 100, intervalMs: 1_000 }, () => 2);
    let units = 0;
    // The first call brings five units back, as the counter object grants a lease.
    const sendAndLease = async (items: readonly Item[]) => {
      const verdicts = await object.send(items);
      if (object.batches.length === 1) units = 5;
      return verdicts;
    };
    const local = () => {
      if (units === 0) return undefined;
      units--;
      return { ...verdictOf(object.window.hit(0), 0), local: true };
    };
    const coalescer = new Coalescer<Item, Verdict & { local?: boolean }>(untimed);
    const answers = await Promise.all(Array.from({ length: 20 }, () => coalescer.join("k", one, noTimeout, sendAndLease, local)));
    // The first request sends; of the 19 queued behind its call, five are decided on the lease it
    // brought and only the other 14 are sent (before, all 19 were sent and the lease went unused).
    expect(object.batches).toEqual([1, 14]);
    expect(answers.map((a) => Boolean(a.local))).toEqual([false, ...Array(5).fill(true), ...Array(14).fill(false)]);
    expect(answers.map((a) => a.remaining)).toEqual(Array.from({ length: 20 }, (_, i) => 99 - i));
  });

  it("property: requests for several counters of one object share its calls, each counter's verdicts exactly its own sequence", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3 }), counter: fc.constantFrom("a", "b", "c") }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
        async (count, arrivals, latencyDraws, localDraws) => {
          let draw = 0;
          let localDraw = 0;
          const windows = new Map<string, SlidingWindow>();
          const windowOf = (counter: string) => windows.get(counter) ?? windows.set(counter, new SlidingWindow({ count, intervalMs: 1_000 })).get(counter)!;
          const batches: Item[][] = [];
          let inFlight = 0;
          let maxInFlight = 0;
          // The object: decides each counter's part in order, as CounterObject.decide does.
          const send = async (items: readonly Item[]) => {
            inFlight++;
            maxInFlight = Math.max(maxInFlight, inFlight);
            batches.push([...items]);
            for (let i = latencyDraws[draw++ % latencyDraws.length]!; i > 0; i--) await tick();
            inFlight--;
            return items.map((item) => verdictOf(windowOf(item.counter).hit(0), 0));
          };
          // A lease-like local decider: once it refuses a counter it may answer it again only after a call.
          const local = (item: Item) => (localDraws[localDraw++ % localDraws.length] ? verdictOf(windowOf(item.counter).hit(0), 0) : undefined);
          const coalescer = new Coalescer<Item, Verdict>(untimed);
          const pending: Promise<Verdict>[] = [];
          for (const { gap, counter } of arrivals) {
            for (let i = 0; i < gap; i++) await tick();
            pending.push(coalescer.join("object", { counter }, noTimeout, send, local));
          }
          const verdicts = await Promise.all(pending);
          const sequential = new Map(["a", "b", "c"].map((c) => [c, new SlidingWindow({ count, intervalMs: 1_000 })]));
          expect(verdicts).toEqual(arrivals.map(({ counter }) => verdictOf(sequential.get(counter)!.hit(0), 0)));
          expect(maxInFlight).toBeLessThanOrEqual(1);
          expect(coalescer.size).toBe(0);
        },
      ),
      { numRuns: 200, seed: 20261123 },
    );
  });

  it("property: with several calls in flight per object, a counter never has two, at most maxCallsInFlight at once, each counter's verdicts exactly its own sequence", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 1, max: 4 }),
        fc.array(fc.record({ gap: fc.integer({ min: 0, max: 3 }), counter: fc.constantFrom("a", "b", "c", "d", "e") }), { minLength: 1, maxLength: 60 }),
        fc.array(fc.integer({ min: 0, max: 5 }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 10 }),
        async (count, maxCallsInFlight, arrivals, latencyDraws, localDraws) => {
          let draw = 0;
          let localDraw = 0;
          const windows = new Map<string, SlidingWindow>();
          const windowOf = (counter: string) => windows.get(counter) ?? windows.set(counter, new SlidingWindow({ count, intervalMs: 1_000 })).get(counter)!;
          const busy = new Set<string>();
          let inFlight = 0;
          let maxInFlight = 0;
          let overlapping = 0;
          const send = async (items: readonly Item[]) => {
            maxInFlight = Math.max(maxInFlight, ++inFlight);
            const counters = new Set(items.map((item) => item.counter));
            for (const counter of counters) {
              if (busy.has(counter)) overlapping++;
              else busy.add(counter);
            }
            for (let i = latencyDraws[draw++ % latencyDraws.length]!; i > 0; i--) await tick();
            inFlight--;
            for (const counter of counters) busy.delete(counter);
            return items.map((item) => verdictOf(windowOf(item.counter).hit(0), 0));
          };
          const local = (item: Item) => (localDraws[localDraw++ % localDraws.length] ? verdictOf(windowOf(item.counter).hit(0), 0) : undefined);
          const coalescer = new Coalescer<Item, Verdict>({ ...untimed, maxCallsInFlight });
          const pending: Promise<Verdict>[] = [];
          for (const { gap, counter } of arrivals) {
            for (let i = 0; i < gap; i++) await tick();
            pending.push(coalescer.join("object", { counter }, noTimeout, send, local));
          }
          const verdicts = await Promise.all(pending);
          const sequential = new Map(["a", "b", "c", "d", "e"].map((c) => [c, new SlidingWindow({ count, intervalMs: 1_000 })]));
          expect(verdicts).toEqual(arrivals.map(({ counter }) => verdictOf(sequential.get(counter)!.hit(0), 0)));
          expect(overlapping).toBe(0);
          expect(maxInFlight).toBeLessThanOrEqual(maxCallsInFlight);
          expect(coalescer.size).toBe(0);
        },
      ),
      { numRuns: 300, seed: 20261123 },
    );
  });

  it("another counter of the object does not wait for a call in flight; past maxCallsInFlight everyone shares the next call", async () => {
    const releases: ((results: string[]) => void)[] = [];
    const sent: string[][] = [];
    const send = (items: readonly Item[]) => {
      sent.push(items.map((i) => i.counter));
      return new Promise<string[]>((resolve) => releases.push(() => resolve(items.map((i) => `object:${i.counter}`))));
    };
    const coalescer = new Coalescer<Item, string>({ ...untimed, maxCallsInFlight: 2 });
    const a1 = coalescer.join("object", { counter: "a" }, noTimeout, send);
    const b1 = coalescer.join("object", { counter: "b" }, noTimeout, send);
    // Two calls in flight: "a" again waits for its own call, "c" for a free one.
    const rest = ["a", "c", "b", "c"].map((counter) => coalescer.join("object", { counter }, noTimeout, send));
    await tick();
    expect(sent).toEqual([["a"], ["b"]]);
    releases[0]!([]);
    expect(await a1).toBe("object:a");
    await tick();
    // "a" is free again and one call is: every queued request whose counter is free goes together;
    // "b" still has its call in flight, so its second request keeps waiting.
    expect(sent).toEqual([["a"], ["b"], ["a", "c", "c"]]);
    releases[1]!([]);
    releases[2]!([]);
    expect(await b1).toBe("object:b");
    await new Promise((resolve) => setTimeout(resolve, 0));
    releases[3]!([]);
    expect(await Promise.all(rest)).toEqual(["object:a", "object:c", "object:b", "object:c"]);
    expect(sent).toEqual([["a"], ["b"], ["a", "c", "c"], ["b"]]);
    expect(coalescer.size).toBe(0);
  });

  it("a counter the local decider refuses keeps its place: its later requests go with it, other counters' are decided", async () => {
    let release!: (v: string[]) => void;
    const sent: string[][] = [];
    const send = (items: readonly Item[]) => {
      sent.push(items.map((i) => i.counter));
      return sent.length === 1 ? new Promise<string[]>((r) => (release = r)) : Promise.resolve(items.map((i) => `object:${i.counter}`));
    };
    const answered = new Set(["b"]);
    const local = (item: Item) => (answered.has(item.counter) ? `local:${item.counter}` : undefined);
    const coalescer = new Coalescer<Item, string>(untimed);
    const first = coalescer.join("object", { counter: "x" }, noTimeout, send, local);
    const queued = ["a", "b", "a", "b", "c"].map((counter) => coalescer.join("object", { counter }, noTimeout, send, local));
    await tick();
    release(["object:x"]);
    expect(await first).toBe("object:x");
    expect(await Promise.all(queued)).toEqual(["object:a", "local:b", "object:a", "local:b", "object:c"]);
    expect(sent).toEqual([["x"], ["a", "a", "c"]]);
  });

  it("riders go with a call to their object, after its requests, only for counters with no call in flight; while it flies their counters wait for it", async () => {
    const releases: (() => void)[] = [];
    const sent: string[][] = [];
    const send = (items: readonly Item[]) => {
      sent.push(items.map((i) => i.counter));
      return new Promise<string[]>((resolve) => releases.push(() => resolve(items.map((i) => `object:${i.counter}`))));
    };
    // "r" and "b" have work due at "object", "s" at another object.
    const riders = (key: string): Item[] => (key === "object" ? [{ counter: "r" }, { counter: "b" }] : [{ counter: "s" }]);
    const coalescer = new Coalescer<Item, string>({ ...untimed, maxCallsInFlight: 2, riders });
    const b1 = coalescer.join("object", { counter: "b" }, noTimeout, send);
    await tick();
    // "b" has a call in flight: it goes with it, not as a rider; "r" rides.
    expect(sent).toEqual([["b", "r"]]);
    const a1 = coalescer.join("object", { counter: "a" }, noTimeout, send);
    const r1 = coalescer.join("object", { counter: "r" }, noTimeout, send);
    await tick();
    // "r" is in flight as a rider: its request waits for that call. "b" is busy, so it rides no more.
    expect(sent).toEqual([["b", "r"], ["a"]]);
    releases[0]!();
    // The rider's result is dropped: the request answered is b's own.
    expect(await b1).toBe("object:b");
    await tick();
    expect(sent).toEqual([["b", "r"], ["a"], ["r", "b"]]);
    releases[1]!();
    releases[2]!();
    expect(await Promise.all([a1, r1])).toEqual(["object:a", "object:r"]);
    expect(coalescer.size).toBe(0);
  });

  it("keeps keys apart", async () => {
    const a = fakeObject({ count: 1, intervalMs: 1_000 }, () => 1);
    const b = fakeObject({ count: 1, intervalMs: 1_000 }, () => 1);
    const coalescer = new Coalescer<Item, Verdict>(untimed);
    const [va, vb] = await Promise.all([coalescer.join("a", one, noTimeout, a.send), coalescer.join("b", one, noTimeout, b.send)]);
    expect([va.allowed, vb.allowed]).toEqual([true, true]);
  });

  it("a failed call fails every request in its batch; the next request sends again", async () => {
    const coalescer = new Coalescer<Item, number>(untimed);
    let calls = 0;
    const failing = async (items: readonly Item[]) => {
      calls++;
      await tick();
      throw new Error(`overloaded (${items.length})`);
    };
    const results = await Promise.allSettled(Array.from({ length: 5 }, () => coalescer.join("k", one, noTimeout, failing)));
    expect(results.map((r) => r.status)).toEqual(Array(5).fill("rejected"));
    expect(calls).toBe(2);
    expect(await coalescer.join("k", one, noTimeout, async (items) => items.map(() => 7))).toBe(7);
  });

  it("a call that never answers is abandoned after its timeout: its requests fail, queued ones then send their own", async () => {
    const clock = drivenClock();
    const coalescer = new Coalescer<Item, number>(clock.options);
    // A call that never answers; its sender gives up at its own timer (as callObject races one).
    const hung = coalescer.join("k", one, 100, async () => {
      await clock.after(100);
      throw new Error("counter did not answer within 100 ms");
    });
    // Queued behind it: it waits for that call's timeout, then sends its own.
    let sentAt: number | undefined;
    const queued = coalescer.join("k", one, 100, async (items) => {
      sentAt = clock.now();
      return items.map(() => 1);
    });
    // Its failure is awaited from the start, so it is never an unhandled rejection meanwhile.
    const hungOutcome = expect(hung).rejects.toThrow(/did not answer within 100 ms/);
    await clock.runUntil(300);
    await hungOutcome;
    expect(await queued).toBe(1);
    expect(sentAt).toBe(100);
  });

  it("a request's timeout runs from when its call is sent, not from when it queued", async () => {
    const clock = drivenClock();
    const coalescer = new Coalescer<Item, number>(clock.options);
    const first = coalescer.join("k", one, 100, async (items) => {
      await clock.after(90); // the first call takes 90 of its 100 ms
      return items.map(() => 1);
    });
    const second = coalescer.join("k", one, 100, async (items) => {
      await clock.after(50);
      return items.map(() => 2);
    });
    await clock.runUntil(500);
    expect(await first).toBe(1);
    expect(await second).toBe(2); // queued for 90 ms and answered 50 ms after it was sent: 140 ms, yet not timed out
  });

  it("a request for an idle object sends at once: no wait, no timer", async () => {
    const clock = drivenClock();
    const coalescer = new Coalescer<Item, number>(clock.options);
    const sent: number[] = [];
    const answer = coalescer.join("k", one, 100, async (items) => {
      sent.push(items.length);
      return items.map(() => 1);
    });
    expect(sent).toEqual([1]); // sent before join first yields
    expect(await answer).toBe(1);
    expect(clock.counts).toEqual({ armed: 0, fired: 0, sleeps: 0 });
  });

  it("1,000 requests queued behind a 200 ms call wake about twice each (when a call returns), not once per ms: no polling timer", async () => {
    const clock = drivenClock();
    const coalescer = new Coalescer<Item, number>(clock.options);
    const batches: number[] = [];
    const send = async (items: readonly Item[]) => {
      batches.push(items.length);
      const call = batches.length;
      await clock.after(200);
      return items.map(() => call);
    };
    const n = 1_000;
    const answers = Promise.all(Array.from({ length: n }, () => coalescer.join("k", one, 1_000, send)));
    await clock.runUntil(2_000);
    expect(await answers).toEqual([1, ...Array(n - 1).fill(2)]);
    expect(batches).toEqual([1, n - 1]);
    // Polling slept 1 ms at a time: (n - 1) x 200 sleeps behind the first call, as many again
    // behind the second. Now each queued request arms one timer (the deadline of the call it
    // waits for) per call it waits for, and each is woken by the call returning, not the timer.
    expect(clock.counts.sleeps).toBe(0);
    expect(clock.counts.fired).toBe(0);
    expect(clock.counts.armed).toBeLessThanOrEqual(2 * n);
    expect(clock.pending()).toBe(0); // every timer cleared by the request that armed it
    expect(coalescer.size).toBe(0);
  });

  it("when the request that sent a call is gone mid-call (its call never returns), its batch fails at the call's deadline and the requests queued behind get their turn, each woken by its own one timer", async () => {
    const clock = drivenClock();
    const coalescer = new Coalescer<Item, string>(clock.options);
    const first = coalescer.join("k", one, 100, async (items) => {
      await clock.after(50);
      return items.map(() => "first");
    });
    // Queued behind the first call, sent together as the second call at 50 ms by whichever wakes
    // first, whose request is then cancelled: in workerd its continuation never runs again, so
    // the call neither returns nor fails (a promise that never settles models it).
    const gone = () => new Promise<string[]>(() => {});
    const settled: string[] = [];
    const inGoneCall = ["b", "c"].map((name) =>
      coalescer.join("k", one, 100, gone).then(
        (answer) => void settled.push(`${name}: ${answer}`),
        (error: Error) => void settled.push(`${name}: ${error.message}`),
      ),
    );
    await clock.runUntil(60);
    expect(await first).toBe("first");
    // Arrives while that call is in flight (deadline 150 ms): waits for it, and it never returns.
    let sentAt: number | undefined;
    const behind = coalescer.join("k", one, 100, async (items) => {
      sentAt = clock.now();
      return items.map(() => "behind");
    });
    await clock.runUntil(1_000);
    expect(await behind).toBe("behind");
    expect(sentAt).toBe(150);
    // The sender's own join never settles (its request is gone); the other request in its call
    // failed at the call's deadline.
    expect(settled).toEqual(["c: counter did not answer within 100 ms"]);
    void inGoneCall;
    expect(clock.counts.sleeps).toBe(0);
    expect(clock.counts.fired).toBe(2); // "c" and the one behind: one timer each
    expect(clock.pending()).toBe(0);
  });

  it("refuses an answer of the wrong length rather than guessing", async () => {
    const coalescer = new Coalescer<Item, number>(untimed);
    await expect(coalescer.join("k", one, noTimeout, async () => [])).rejects.toThrow(/0 results for 1/);
  });
});
