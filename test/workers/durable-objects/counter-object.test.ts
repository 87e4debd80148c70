// The counter Durable Object in the Workers runtime: concurrency, restarts, clean-up, storage.
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { CounterObject, HitBatch } from "../../../src/durable-objects/counter-object.ts";
import type { Verdict } from "../../../src/core/limiter/index.ts";
import { SETTLE_MS } from "../../../src/core/limiter/index.ts";
import { burst, freshIdentity, gateway } from "../support/requests.ts";

const LIMIT = { count: 15, intervalMs: 10_000 };
const T0 = 1_800_000_000_000;

/** A counter object whose clock the test drives. */
async function counterAt(clock: { now: number }, name = `test:${crypto.randomUUID()}`) {
  const stub = env.COUNTERS.getByName(name);
  await useClock(stub, clock);
  return stub;
}
async function useClock(stub: DurableObjectStub<CounterObject>, clock: { now: number }) {
  await runInDurableObject(stub, (instance: CounterObject) => {
    instance.now = () => clock.now;
  });
}
/** One counter's batch, through the object's one entry point (`decide`), from a test's stub. */
async function hitBatch(stub: DurableObjectStub<CounterObject>, batch: HitBatch): Promise<Verdict[]> {
  return (await stub.decide([batch]))[0]!.verdicts;
}
/** One request, from a test's stub. */
const hit = async (stub: DurableObjectStub<CounterObject>, limit = LIMIT): Promise<Verdict> => (await hitBatch(stub, { limit, hits: 1 }))[0]!;
/** The same, inside the object (runInDurableObject), where `decide` answers at once. */
const hitInside = (instance: CounterObject, batch: HitBatch): Verdict[] => instance.decide([batch])[0]!.verdicts;

/** How many of `n` hits sent at once the object admits. */
async function admissionsOf(stub: DurableObjectStub<CounterObject>, n: number, limit = LIMIT) {
  const verdicts = await Promise.all(Array.from({ length: n }, () => hit(stub, limit)));
  return verdicts.filter((v) => v.allowed).length;
}
const stored = (stub: DurableObjectStub<CounterObject>) =>
  runInDurableObject(stub, async (_, state) => ({
    entries: [...state.storage.kv.list()],
    alarm: await state.storage.getAlarm(),
  }));

describe("concurrency", () => {
  it("60 simultaneous hits against 15/10 admit exactly 15", async () => {
    const stub = await counterAt({ now: T0 });
    expect(await admissionsOf(stub, 60)).toBe(15);
  });

  it("60 simultaneous requests through the gateway against row 12 (15/10) get exactly 15 through", async () => {
    const who = freshIdentity();
    const statuses = await burst(60, () => gateway("/runs/query", { method: "POST", headers: { "x-api-key": who.apiKey, "cf-connecting-ip": who.ip } }), 60);
    expect(Object.fromEntries(statuses)).toEqual({ 200: 15, 429: 45 });
  });
});

describe("sliding window in the object", () => {
  it("does not count denials, and frees room exactly one interval after the oldest admission", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    expect(await admissionsOf(stub, 15)).toBe(15);
    clock.now = T0 + 5_000;
    const denied = await hit(stub);
    expect(denied).toMatchObject({ allowed: false, remaining: 0, retryInMs: 5_000 });
    expect(await admissionsOf(stub, 10)).toBe(0);
    clock.now = T0 + 9_999;
    expect(await admissionsOf(stub, 1)).toBe(0);
    clock.now = T0 + 10_000;
    expect(await admissionsOf(stub, 20)).toBe(15);
  });

  it("follows a changed limit (a new rule table) without losing the window", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    expect(await admissionsOf(stub, 10)).toBe(10);
    expect(await admissionsOf(stub, 5, { count: 5, intervalMs: 10_000 })).toBe(0);
    expect(await admissionsOf(stub, 10, { count: 12, intervalMs: 10_000 })).toBe(2);
  });
});

describe("restarts never let extra requests through", () => {
  for (const [how, restart] of [
    ["eviction", (stub: DurableObjectStub<CounterObject>) => evictDurableObject(stub)],
    ["abort of every object (a crash)", () => abortAllDurableObjects()],
  ] as const) {
    it(`keeps the window across ${how}`, async () => {
      const clock = { now: T0 };
      const name = `test:${crypto.randomUUID()}`;
      let stub = await counterAt(clock, name);
      expect(await admissionsOf(stub, 10)).toBe(10);
      clock.now = T0 + 1_000;
      await restart(stub);
      stub = await counterAt(clock, name);
      const after = await admissionsOf(stub, 15);
      // At most the 5 units left; fewer is allowed (restored state may only over-count).
      expect(after).toBeLessThanOrEqual(5);
      // ...and the over-count is bounded: the window reopens once the interval has passed.
      clock.now = T0 + 1_000 + LIMIT.intervalMs + 1_000;
      expect(await admissionsOf(stub, 15)).toBe(15);
    });
  }

  it("keeps its Retry-After promise across an eviction after idleness (exact snapshot)", async () => {
    const clock = { now: T0 };
    const name = `test:${crypto.randomUUID()}`;
    let stub = await counterAt(clock, name);
    expect(await admissionsOf(stub, 5)).toBe(5);
    clock.now = T0 + 3_000;
    expect(await admissionsOf(stub, 10)).toBe(10);
    clock.now = T0 + 4_000;
    expect(await hit(stub)).toMatchObject({ allowed: false, retryInMs: 6_000 });
    clock.now = T0 + 3_000 + SETTLE_MS;
    expect(await runDurableObjectAlarm(stub)).toBe(true); // idle: the exact window is written
    await evictDurableObject(stub);
    stub = await counterAt(clock, name);
    clock.now = T0 + 9_999;
    expect(await admissionsOf(stub, 1)).toBe(0);
    clock.now = T0 + 10_000; // exactly when the denial said room would free
    expect(await admissionsOf(stub, 6)).toBe(5);
  });

  it("survives restarts in the middle of a burst", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    let total = 0;
    for (let round = 0; round < 5; round++) {
      total += await admissionsOf(stub, 7);
      await evictDurableObject(stub);
      await useClock(stub, clock);
    }
    expect(total).toBeLessThanOrEqual(LIMIT.count);
  });
});

describe("storage", () => {
  it("stays bounded and is written in batches at 600 requests per second", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    const writes = await runInDurableObject(stub, async (instance: CounterObject, state) => {
      let writes = 0;
      const put = state.storage.kv.put.bind(state.storage.kv);
      state.storage.kv.put = (key, value) => {
        writes++;
        put(key, value);
      };
      const limit = { count: 6000, intervalMs: 10_000 };
      let allowed = 0;
      for (let i = 0; i < 12_000; i++) {
        clock.now = T0 + Math.floor((i * 1000) / 600);
        if (hitInside(instance, { limit, hits: 1 })[0]!.allowed) allowed++;
      }
      expect(allowed).toBe(12_000); // 600/s never exceeds 6000 per 10 s
      return writes;
    });
    expect(writes).toBeGreaterThan(0);
    expect(writes).toBeLessThan(12_000 / 50); // far fewer writes than requests
    const { entries } = await stored(stub);
    expect(entries).toHaveLength(1);
    const [, value] = entries[0]! as [string, { reservations: unknown[] }];
    expect(value.reservations.length).toBeLessThan(50); // O(window / span), not O(requests)
  });

  it("leaves nothing behind once an identity has been idle for a full window (alarm clean-up)", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    expect(await admissionsOf(stub, 5)).toBe(5);
    const before = await stored(stub);
    expect(before.entries).toHaveLength(1);
    expect(before.alarm).not.toBeNull();

    // An alarm that fires while the window still holds admissions keeps them and re-arms.
    clock.now = T0 + 5_000;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const during = await stored(stub);
    expect(during.entries).toHaveLength(1);
    expect(during.alarm).not.toBeNull();

    clock.now = T0 + 60_000;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const after = await stored(stub);
    expect(after.entries).toEqual([]);
    expect(after.alarm).toBeNull();
    // And the identity starts afresh.
    expect(await admissionsOf(stub, 15)).toBe(15);
  });
});

describe("several counters in one object (keys)", () => {
  it("counts each key apart, settles each, and leaves nothing once all are stale", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    const hits = (key: string, n: number) => hitBatch(stub, { key, limit: LIMIT, hits: n });
    expect((await hits("a", 20)).filter((v) => v.allowed)).toHaveLength(15);
    clock.now = T0 + 4_000;
    expect((await hits("b", 5)).filter((v) => v.allowed)).toHaveLength(5);
    expect((await hits("a", 1))[0]!.allowed).toBe(false);
    expect((await stored(stub)).entries.map(([k]) => k).sort()).toEqual(["ledger:a", "ledger:b"]);

    // a's window empties at T0 + 10 s, b's at T0 + 14 s: the alarm deletes a, keeps b, re-arms.
    await evictDurableObject(stub); // the alarm must also find counters it has not met in memory
    await useClock(stub, clock);
    clock.now = T0 + 12_000;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const during = await stored(stub);
    expect(during.entries.map(([k]) => k)).toEqual(["ledger:b"]);
    expect(during.alarm).not.toBeNull();
    expect((await hits("b", 15)).filter((v) => v.allowed)).toHaveLength(10);

    clock.now = T0 + 60_000;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(stub)).toEqual({ entries: [], alarm: null });
  });

  it("keeps only counters in use in memory: a settled one is reloaded from storage exactly", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    const keys = Array.from({ length: 20 }, (_, i) => `k${i}`);
    for (const key of keys) expect((await hitBatch(stub, { key, limit: LIMIT, hits: 3 })).every((v) => v.allowed)).toBe(true);
    // Memory is seen by what answers: a counter held in memory never reads storage again, so with
    // its stored copy gone it still holds its 3 (12 of 15 fit); one dropped from memory starts
    // over from storage, with nothing there (15 of 15).
    const admittedWithoutStoredCopy = async (key: string) => {
      await runInDurableObject(stub, (_, state) => state.storage.kv.delete(`ledger:${key}`));
      return (await hitBatch(stub, { key, limit: LIMIT, hits: 15 })).filter((v) => v.allowed).length;
    };
    expect(await admittedWithoutStoredCopy("k0")).toBe(12);
    clock.now = T0 + SETTLE_MS;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    for (const key of keys.slice(1, -1)) expect(await admittedWithoutStoredCopy(key)).toBe(15);
    // Reloaded on demand with every admission it held: 12 more fit, not 15.
    const verdicts = await hitBatch(stub, { key: "k19", limit: LIMIT, hits: 15 });
    expect(verdicts.filter((v) => v.allowed)).toHaveLength(12);
    clock.now = T0 + LIMIT.intervalMs; // the first 3 leave the window exactly on time
    expect((await hitBatch(stub, { key: "k19", limit: LIMIT, hits: 4 })).filter((v) => v.allowed)).toHaveLength(3);
  });

  it("lists its storage at its first alarm only: later alarms settle the counters in memory without reading them and clean up those it let go from what it noted, deleting each once stale", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    const keys = Array.from({ length: 10 }, (_, i) => `k${i}`);
    for (const key of keys) await hitBatch(stub, { key, limit: LIMIT, hits: 3 });
    // The instance's first alarm lists storage (a restart may have left counters it never met).
    clock.now = T0 + SETTLE_MS;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // From now on, the object's reads of storage are counted (not this test's own, `stored`).
    const reads = await runInDurableObject(stub, (_, state) => {
      const kv = state.storage.kv;
      const counted = { lists: 0, gets: 0, on: true };
      const list = kv.list.bind(kv);
      const get = kv.get.bind(kv);
      Object.assign(kv, {
        list: (...args: Parameters<typeof kv.list>) => (counted.on && counted.lists++, list(...args)),
        get: (...args: Parameters<typeof kv.get>) => (counted.on && counted.gets++, get(...args)),
      });
      return counted;
    });
    const storedNow = async () => {
      reads.on = false;
      const now = await stored(stub);
      reads.on = true;
      return now;
    };
    // k0 is used again; the others stay let go.
    clock.now = T0 + 5_000;
    await hitBatch(stub, { key: "k0", limit: LIMIT, hits: 1 });
    clock.now = T0 + 5_000 + SETTLE_MS;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    // Once the others are stale, they are deleted, k0 stays until it is.
    clock.now = T0 + LIMIT.intervalMs + 1;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect((await storedNow()).entries.map(([k]) => k)).toEqual(["ledger:k0"]);
    clock.now = T0 + 5_000 + LIMIT.intervalMs + 1;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await storedNow()).toEqual({ entries: [], alarm: null });
    // k0 was read once, when its request brought it back: a counter in memory settles from what it
    // wrote itself, so its alarms read nothing; nothing else was listed or read.
    expect(reads).toMatchObject({ lists: 0, gets: 1 });
  });

  it("arms the alarm once per busy spell, not once per reservation", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    const alarms = await runInDurableObject(stub, (instance: CounterObject, state) => {
      let alarms = 0;
      const setAlarm = state.storage.setAlarm.bind(state.storage);
      state.storage.setAlarm = (at, options) => {
        alarms++;
        return setAlarm(at, options);
      };
      const limit = { count: 6000, intervalMs: 10_000 };
      for (let i = 0; i < 6_000; i++) {
        clock.now = T0 + Math.floor((i * 1000) / 600);
        hitInside(instance, { key: String(i % 50), limit, hits: 1 });
      }
      return alarms;
    });
    // 50 counters, about 40 reservations each: the first (one admission, exact) asks for the
    // clean-up alarm, the first batch for the earlier settle alarm; that alarm then serves them all.
    expect(alarms).toBe(2);
  });

  it("keeps a trickle exact without a snapshot, and arms only its clean-up alarm", async () => {
    // 15/10 s reserves one admission at a time: each reservation is its admission's exact time.
    const clock = { now: T0 };
    const name = `test:${crypto.randomUUID()}`;
    let stub = await counterAt(clock, name);
    for (let i = 0; i < 15; i++) {
      clock.now = T0 + i * 100;
      expect(await admissionsOf(stub, 1)).toBe(1);
    }
    // One alarm, armed by the first admission for when it goes stale (no settle at +2 s); it
    // re-arms itself for the later ones when it fires.
    expect((await stored(stub)).alarm).toBe(T0 + LIMIT.intervalMs);
    await evictDurableObject(stub); // no alarm has run: no snapshot
    stub = await counterAt(clock, name);
    clock.now = T0 + 9_999;
    expect(await admissionsOf(stub, 1)).toBe(0);
    clock.now = T0 + 10_000; // the first admission leaves the window, exactly
    expect(await admissionsOf(stub, 2)).toBe(1);
  });
});

describe("hits decided together (one batch)", () => {
  it("decides n hits in order exactly as n sequential hits at the same instant would", async () => {
    // Random schedules of (batch size, time step) against two objects on one clock: one asked in
    // batches through its stub, one asked hit by hit (inside the object: one call into it per
    // step rather than one per hit, the same `decide`). Their verdicts, in order, are the same.
    const { default: fc } = await import("fast-check");
    await fc.assert(
      fc.asyncProperty(
        fc.record({ count: fc.integer({ min: 1, max: 20 }), intervalMs: fc.integer({ min: 1, max: 5_000 }) }),
        fc.array(fc.tuple(fc.integer({ min: 1, max: 30 }), fc.integer({ min: 0, max: 3_000 })), { minLength: 1, maxLength: 12 }),
        async (drawn, schedule) => {
          const limit = { count: drawn.count, intervalMs: drawn.intervalMs };
          const clock = { now: T0 };
          const batched = await counterAt(clock);
          const single = await counterAt(clock);
          for (const [n, step] of schedule) {
            clock.now += step;
            const together = await hitBatch(batched, { limit, hits: n });
            const oneByOne = await runInDurableObject(single, (instance: CounterObject) =>
              Array.from({ length: n }, () => hitInside(instance, { limit, hits: 1 })[0]!),
            );
            expect(together).toEqual(oneByOne);
          }
        },
      ),
      { numRuns: 40, seed: 20261123 },
    );
  });

  it("counts admissions made elsewhere (recorded) before deciding", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    // Made 1,000 ms to 991 ms before the call, by the isolate's account.
    const recorded = [{ id: "isolate-1", agesMs: Array.from({ length: 10 }, (_, i) => 1_000 - i) }];
    const verdicts = await hitBatch(stub, { limit: LIMIT, hits: 8, recorded });
    expect(verdicts.map((v) => v.allowed)).toEqual([true, true, true, true, true, false, false, false]);
    // The oldest recorded admission frees the first unit, one interval after it was made.
    expect(verdicts[5]).toMatchObject({ remaining: 0, retryInMs: 9_000 });
  });

  it("refuses a batch size that is not a whole number from 1", async () => {
    const stub = await counterAt({ now: T0 });
    await runInDurableObject(stub, (instance: CounterObject) => {
      for (const hits of [0, 1.5, -1, Number.NaN]) expect(() => hitInside(instance, { limit: LIMIT, hits })).toThrow(/hits must be a whole number/);
    });
  });
});

describe("several counters in one call", () => {
  it("decides each counter's batch exactly as its own call would, and sets the alarm the earliest of them needs", async () => {
    const clock = { now: T0 };
    const together = await counterAt(clock);
    const apart = await counterAt(clock);
    const batches = [
      { key: "a", limit: LIMIT, hits: 10 },
      { key: "b", limit: { count: 3, intervalMs: 5_000 }, hits: 5 },
      { key: "a", limit: LIMIT, hits: 8 },
    ];
    const answers = await together.decide(batches);
    const separately = [];
    for (const batch of batches) separately.push((await apart.decide([batch]))[0]!);
    expect(answers).toEqual(separately);
    expect(answers.map((a) => a.verdicts.filter((v) => v.allowed).length)).toEqual([10, 3, 5]);
    const { entries, alarm } = await stored(together);
    expect(entries.map(([key]) => key).sort()).toEqual(["ledger:a", "ledger:b"]);
    // The alarm the earliest counter needs, as the three calls made apart set it.
    expect(alarm).toBe((await stored(apart)).alarm);
    expect(alarm).not.toBeNull();
  });

  it("refuses a malformed call whole, before deciding any of it", async () => {
    const clock = { now: T0 };
    const stub = await counterAt(clock);
    await runInDurableObject(stub, (instance: CounterObject) => {
      expect(() => instance.decide([])).toThrow(/non-empty list/);
      expect(() =>
        instance.decide([
          { key: "a", limit: LIMIT, hits: 5 },
          { key: "b", limit: LIMIT, hits: 0 },
        ]),
      ).toThrow(/hits must be a whole number/);
      expect(() =>
        instance.decide([
          { key: "a", limit: LIMIT, hits: 60_000 },
          { key: "b", limit: LIMIT, hits: 60_000 },
        ]),
      ).toThrow(/at most 100000 hits/);
    });
    // Nothing was counted: the first batch of the refused call left key "a" untouched.
    expect((await hitBatch(stub, { key: "a", limit: LIMIT, hits: 15 })).every((v) => v.allowed)).toBe(true);
  });
});
