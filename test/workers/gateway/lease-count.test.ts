// Admission leases through the gateway's own count() (deny cache, lease, coalescer, object call),
// against counter objects run in memory with a driven clock: the pure halves are tested in
// test/unit/core/limiter/lease.test.ts. Here because count() belongs to the Worker.
import { env } from "cloudflare:workers";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { Region } from "../../../src/core/rules/schema.ts";
import { gatewayWith, recordingLimiter } from "../support/custom-gateway.ts";
import { freshIdentity } from "../support/requests.ts";
import type { Env } from "../../../src/env.ts";
import { Counting, MAX_CALLS_PER_OBJECT, type AttributedVerdict } from "../../../src/gateway/counting.ts";
import { LEASE_MIN_COUNT, verdictOf, type Limit, type Verdict } from "../../../src/core/limiter/index.ts";
import { memoryLimiter } from "../support/memory-limiter.ts";
import { drivenTimers } from "../support/driven-timers.ts";
import { stepsArb } from "../../unit/core/limiter/arbitraries.ts";
import { ReferenceWindow } from "../../unit/core/limiter/reference-model.ts";
import { publishedRow } from "../../support/rows.ts";

/** Limits on both sides of LEASE_MIN_COUNT: leased counters and counters asked every time. */
const leasedLimitArb: fc.Arbitrary<Limit> = fc.record({
  count: fc.oneof(fc.integer({ min: 1, max: LEASE_MIN_COUNT - 1 }), fc.integer({ min: LEASE_MIN_COUNT, max: 400 })),
  intervalMs: fc.integer({ min: 50, max: 20_000 }),
});

let run = 0;

/**
 * One isolate's part of counting, on a clock the test drives. Its leases are never given back at
 * their end here (that timer never fires): one isolate gives each back with its next call anyway,
 * and isolates.test.ts drives the give-backs of many.
 */
function isolateAt(now: () => number): Counting {
  return new Counting(`isolate-${run++}`, { now, sleep: (_ms, purpose) => (purpose === "request" ? Promise.resolve() : new Promise(() => {})) });
}

/**
 * Runs `work` on fake timers (the object's latency, the clients' pauses) moved a millisecond at a
 * time: requests meet calls in flight in the same order on any machine, however busy.
 */
async function inFakeTime<T>(work: () => Promise<T>): Promise<T> {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
  try {
    let done = false;
    const result = work().finally(() => (done = true));
    while (!done) await vi.advanceTimersByTimeAsync(1);
    return await result;
  } finally {
    vi.useRealTimers();
  }
}

/** One request through the gateway's count() on `address`, as the gateway counts with a lease-capable algorithm. */
function countOn(
  counting: Counting,
  env: Env,
  address: { name: string; object: string; key: string },
  limit: Limit,
  options: { timeoutMs?: number; cacheDenials?: boolean; failMode?: "open" | "closed" } = {},
): Promise<AttributedVerdict> {
  const { timeoutMs = 1_000, cacheDenials = true, failMode = "closed" } = options;
  // Work after the response (renewals, give-backs) runs on its own, as under waitUntil.
  return counting.count(env, {
    jurisdiction: undefined,
    address,
    limit,
    timeoutMs,
    cacheDenials,
    algorithm: "sliding-window",
    failMode,
    background: (work) => void work.catch(() => {}),
  });
}

describe("admission leases through count()", () => {
  it("property: through count(), one isolate's answers are exactly the sliding window's, header values included", async () => {
    await fc.assert(
      fc.asyncProperty(
        leasedLimitArb.chain((limit) => fc.tuple(fc.constant(limit), stepsArb(limit.intervalMs, 80))),
        async ([limit, steps]) => {
          let now = 1_000_000;
          const counting = isolateAt(() => now);
          const { env } = memoryLimiter(() => now);
          const reference = new ReferenceWindow(limit);
          const address = { name: `lease-run-${run++}`, object: "o", key: `k${run}` };
          for (const { gap, burst } of steps) {
            now += gap;
            for (let i = 0; i < burst; i++) {
              const counted: AttributedVerdict = await countOn(counting, env, address, limit);
              const expected: Verdict = verdictOf(reference.decide(now, true), now);
              expect({ ...counted, decidedBy: undefined }).toEqual({ ...expected, decidedBy: undefined });
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("answers on a lease follow admissions out of the window to the millisecond", async () => {
    let now = 0;
    const counting = isolateAt(() => now);
    const { env } = memoryLimiter(() => now);
    const limit = { count: 800, intervalMs: 1_000 };
    const reference = new ReferenceWindow(limit);
    const address = { name: `lease-edge-${run++}`, object: "o", key: "edge" };
    const seen: string[] = [];
    // 0: three admissions; 950: a new lease (100 ms) during which those three leave the window at 1,000.
    for (const t of [0, 0, 0, 950, 960, 999, 1_000, 1_001, 1_049, 1_050]) {
      now = t;
      const counted = await countOn(counting, env, address, limit);
      expect({ ...counted, decidedBy: undefined }).toEqual({ ...verdictOf(reference.decide(now, true), now), decidedBy: undefined });
      seen.push(counted.decidedBy);
    }
    // A lease from the first call (8 units, a quarter of the interval: a first lease is short);
    // ended at 950 part-used, the next is of 4 units, used up at 1,001 and renewed then in the
    // background, so 1,049 and 1,050 wait for no call.
    expect(seen).toEqual(["object", "lease", "lease", "object", "lease", "lease", "lease", "lease", "lease", "lease"]);
  });

  it("a warm counter reaches its object once per lease, not once per request", async () => {
    let now = 5_000_000;
    const counting = isolateAt(() => now);
    const { env, calls } = memoryLimiter(() => now);
    const limit = { count: 10_000, intervalMs: 60_000 };
    const address = { name: `lease-warm-${run++}`, object: "o", key: "warm" };
    const decidedBy: string[] = [];
    for (let i = 0; i < 200; i++) {
      now += 5;
      const counted = await countOn(counting, env, address, limit);
      expect(counted).toMatchObject({ allowed: true, remaining: limit.count - 1 - i });
      decidedBy.push(counted.decidedBy);
    }
    // A lease from the first call on; slow start: 8, 16, 32, 64, 128 units, each renewed in the
    // background as it runs out, so after the first no request waits for a call.
    expect(calls()).toBeLessThanOrEqual(6);
    expect(decidedBy.filter((d) => d === "object")).toHaveLength(1);
  });

  it("a busy counter: requests queued behind the call that brings a lease are decided on it, every answer exact", async () => {
    const now = 7_000_000;
    const counting = isolateAt(() => now);
    // The object answers after a few milliseconds, so requests always queue behind its call.
    const { env, calls } = memoryLimiter(
      () => now,
      () => new Promise((resolve) => setTimeout(resolve, 3)),
    );
    const limit = { count: 10_000, intervalMs: 60_000 };
    const address = { name: `lease-busy-${run++}`, object: "o", key: "busy" };
    const answers: AttributedVerdict[] = [];
    // 32 clients, each sending its next request a moment (0-3 ms) after its last is answered, so
    // requests keep arriving while a call is in flight, as from a network.
    await inFakeTime(() =>
      Promise.all(
        Array.from({ length: 32 }, async (_, client) => {
          for (let i = 0; i < 20; i++) {
            await new Promise((resolve) => setTimeout(resolve, (client + i) % 4));
            answers.push(await countOn(counting, env, address, limit, { timeoutMs: 300_000 }));
          }
        }),
      ),
    );
    // Exact: 640 admissions, each told a different remaining, as 640 sequential hits would be.
    expect(answers.every((a) => a.allowed)).toBe(true);
    expect(answers.map((a) => a.remaining).sort((a, b) => b - a)).toEqual(Array.from({ length: 640 }, (_, i) => limit.count - 1 - i));
    // Most are decided on leases (a call brings one; the requests queued behind it are offered
    // it, rather than each call giving back, unused, the lease the call ahead had brought).
    const onLease = answers.filter((a) => a.decidedBy === "lease").length;
    expect(onLease).toBeGreaterThan(320);
    expect(calls()).toBeLessThanOrEqual(12);
  });
});

describe("one call per counter object, for every counter it holds", () => {
  it("identities sharing an object do not wait for each other's call, up to MAX_CALLS_PER_OBJECT at once; each identity's verdicts are exactly its own window's", async () => {
    const now = 9_000_000;
    const counting = isolateAt(() => now);
    const { env, calls, maxInFlight, overlapping } = memoryLimiter(
      () => now,
      () => new Promise((resolve) => setTimeout(resolve, 2)),
    );
    // Below LEASE_MIN_COUNT: every request is decided by the object.
    const limit = { count: 15, intervalMs: 10_000 };
    const tag = run++;
    const identities = ["a", "b", "c", "d", "e"].map((who) => ({ name: `shared-${tag}-${who}`, object: `shared-object-${tag}`, key: who }));
    const answers = await inFakeTime(() =>
      Promise.all(
        Array.from({ length: 150 }, (_, i) => {
          const address = identities[i % identities.length]!;
          return countOn(counting, env, address, limit, { timeoutMs: 300_000, cacheDenials: false }).then((counted) => ({ key: address.key, counted }));
        }),
      ),
    );
    for (const { key } of identities) {
      const own = answers.filter((a) => a.key === key).map((a) => a.counted);
      // In arrival order, exactly what 30 sequential hits on a 15/10 s window answer.
      expect(own.map((c) => c.remaining)).toEqual(Array.from({ length: 30 }, (_, i) => Math.max(0, 14 - i)));
      expect(own.filter((c) => c.allowed)).toHaveLength(15);
    }
    // 150 requests for 5 counters of one object: the first four identities' first requests at once,
    // then each identity's queued requests go together (one call may carry several identities).
    expect(MAX_CALLS_PER_OBJECT).toBe(4);
    expect(maxInFlight()).toBe(MAX_CALLS_PER_OBJECT);
    expect(calls()).toBeLessThanOrEqual(2 * identities.length);
    // Never two calls in flight for one identity: its requests are decided in arrival order.
    expect(overlapping()).toBe(0);
  });
  it("identities sharing an overloaded object: a 10x burst on each admits at most count per identity, the overflow decided by the local fallback", async () => {
    const now = 9_500_000;
    const counting = isolateAt(() => now);
    // The object refuses any call made while another to it is in flight.
    const { env, calls } = memoryLimiter(
      () => now,
      () => new Promise((resolve) => setTimeout(resolve, 2)),
      { overloaded: true },
    );
    const limit = { count: 15, intervalMs: 10_000 };
    const tag = run++;
    const identities = ["a", "b", "c", "d", "e"].map((who) => ({ name: `overloaded-${tag}-${who}`, object: `overloaded-object-${tag}`, key: who }));
    const answers = await inFakeTime(() =>
      Promise.all(
        Array.from({ length: 10 * limit.count * identities.length }, (_, i) => {
          const address = identities[i % identities.length]!;
          return countOn(counting, env, address, limit, { timeoutMs: 300_000, cacheDenials: false, failMode: "open" }).then((counted) => ({
            key: address.key,
            counted,
          }));
        }),
      ),
    );
    for (const { key } of identities) {
      const own = answers.filter((a) => a.key === key).map((a) => a.counted);
      expect(own).toHaveLength(10 * limit.count);
      expect(own.filter((c) => c.allowed).length).toBeLessThanOrEqual(limit.count);
    }
    // Calls beyond the first in flight were refused, and their requests decided locally (counted).
    expect(answers.some((a) => a.counted.decidedBy === "local-fallback")).toBe(true);
    expect(calls()).toBeGreaterThan(1);
  });
});

describe("leases across isolates through count()", () => {
  it("a request refused only because another isolate holds lent units waits for them, asking again with a doubling backoff meanwhile, and is admitted when they come back", async () => {
    const time = { now: 3_000_000 };
    // Timers on the driven clock: a lease given back at its end fires as time moves.
    const { sleep } = drivenTimers(time);
    const clock = { now: () => time.now, sleep };
    const a = new Counting("isolate-a", clock);
    const b = new Counting("isolate-b", clock);
    const limiter = memoryLimiter(() => time.now);
    const limit = { count: 320, intervalMs: 10_000 };
    const address = { name: `lease-wait-${run++}`, object: "o", key: "wait" };
    const count = (counting: Counting) =>
      counting.count(limiter.env, {
        jurisdiction: undefined,
        address,
        limit,
        timeoutMs: 300_000,
        cacheDenials: true,
        algorithm: "sliding-window",
        failMode: "closed",
        background: (work) => void work.catch(() => {}),
      });
    // A is lent 8 units on its first call (lease.ts), and uses none of them.
    await count(a);
    // Other requests fill what is left of the window: its last 8 places are A's lent units.
    const [filled] = await limiter.env.COUNTERS.getByName("o").decide([{ key: "wait", limit, hits: 318 }]);
    expect(filled!.verdicts.filter((v) => v.allowed)).toHaveLength(311);
    const callsBefore = limiter.calls();
    const started = time.now;
    // Two more of B's at once: the first is told to wait for A's lease (its first, so short: a quarter of the interval, 2.5 s), the second
    // waits with it without a call of its own; A gives its 8 units back at its lease's end.
    const [first, second] = await Promise.all([count(b), count(b)]);
    expect(first).toMatchObject({ allowed: true });
    expect(second).toMatchObject({ allowed: true });
    expect(time.now - started).toBeGreaterThanOrEqual(2_400);
    // B's requests ask again after a round trip (here the 20 ms floor), then twice as long each
    // time up to a second: a few calls over A's 2.5 s lease each, then A's give-back and B's calls
    // once the units came back. Asking every round trip would have been 125 calls per request.
    expect(limiter.calls() - callsBefore).toBeLessThanOrEqual(2 * 9 + 3);
  });
});

describe("a grant whose answer was lost", () => {
  it("a call that asked for a lease and timed out after the object decided is followed at once by one naming the newest lease heard of: the object takes the grant back whole", async () => {
    const now = 17_000_000;
    let lose = true;
    // The object decides at once; its answer to the first call comes after the call's deadline.
    const limiter = memoryLimiter(() => now, undefined, {
      answered: () => (lose ? ((lose = false), new Promise<void>((resolve) => setTimeout(resolve, 50))) : undefined),
    });
    const counting = new Counting(`isolate-${run++}`, { now: () => now, sleep: () => new Promise(() => {}) });
    const limit = { count: 800, intervalMs: 60_000 };
    const address = { name: `lost-${run++}`, object: "o", key: "lost" };
    const background: Promise<unknown>[] = [];
    const counted = await inFakeTime(async () => {
      const verdict = await counting.count(limiter.env, {
        jurisdiction: undefined,
        address,
        limit,
        timeoutMs: 10,
        cacheDenials: true,
        algorithm: "sliding-window",
        failMode: "open",
        background: (work) => void background.push(work.catch(() => {})),
      });
      await Promise.all(background);
      return verdict;
    });
    // The first call asked for a lease (8 units) and was decided, but the isolate never heard the answer.
    expect(counted).toMatchObject({ decidedBy: "local-fallback", allowed: true });
    expect(limiter.calls()).toBe(2);
    // Read by a caller of no lease: the request (decided by the object, and by the fallback, whose
    // report names the call the object decided it in: counted once) and this one. The 8 units
    // lent to an isolate that never heard of them are not counted any more.
    const [read] = await limiter.env.COUNTERS.getByName("o").decide([{ key: "lost", limit, hits: 1 }]);
    expect(read!.verdicts[0]).toMatchObject({ allowed: true, remaining: limit.count - 2 });
  });
});

describe("leases of one object go back together", () => {
  /** One isolate on a driven clock whose give-backs fire as the test moves time, and its objects in memory. */
  function ridingSetup() {
    const time = { now: 13_000_000 };
    const { fire, sleep } = drivenTimers(time);
    const counting = new Counting(`isolate-${run++}`, { now: () => time.now, sleep });
    const limiter = memoryLimiter(() => time.now);
    const tag = run++;
    const at = (who: string) => ({ name: `ride-${tag}-${who}`, object: `ride-object-${tag}`, key: who });
    return { time, fire, counting, limiter, at };
  }
  const limit = { count: 10_000, intervalMs: 60_000 };
  /** A first lease on this limit lasts a quarter of the interval, at most MAX_LEASE_MS (lease-desk.ts). */
  const spanMs = 10_000;

  it("a lease about to end goes back with a call another identity's request makes to its object, not with a call of its own", async () => {
    const { time, fire, counting, limiter, at } = ridingSetup();
    expect(await countOn(counting, limiter.env, at("a"), limit)).toMatchObject({ decidedBy: "object", remaining: limit.count - 1 });
    // b's first request, 100 ms before a's lease ends: its call takes a's lease back too.
    time.now += spanMs - 100;
    expect(await countOn(counting, limiter.env, at("b"), limit)).toMatchObject({ decidedBy: "object", remaining: limit.count - 1 });
    expect(limiter.calls()).toBe(2);
    // At a's lease's end nothing is left to give back: no call.
    time.now += 101;
    await fire();
    expect(limiter.calls()).toBe(2);
    // Its 8 unused units came back: a's next request is its second admission.
    expect(await countOn(counting, limiter.env, at("a"), limit)).toMatchObject({ decidedBy: "object", remaining: limit.count - 2 });
  });

  it("leases of ten identities ending within 250 ms of each other go back with one call, at the first one's end", async () => {
    const { time, fire, counting, limiter, at } = ridingSetup();
    const who = Array.from({ length: 10 }, (_, i) => `k${i}`);
    for (const key of who) {
      time.now += 20;
      expect(await countOn(counting, limiter.env, at(key), limit)).toMatchObject({ decidedBy: "object" });
    }
    expect(limiter.calls()).toBe(10);
    // The first lease ends 10 s after the first call; the others within 180 ms after it.
    time.now += spanMs - 9 * 20 + 1;
    await fire();
    expect(limiter.calls()).toBe(11);
    time.now += 1_000;
    await fire();
    expect(limiter.calls()).toBe(11);
    // Every lease came back whole: each identity's next request is its second admission.
    for (const key of who) expect(await countOn(counting, limiter.env, at(key), limit)).toMatchObject({ remaining: limit.count - 2 });
  });
});

describe("admission leases through the gateway and the real counter object", () => {
  it("a warm key's requests are decided on leases: few object calls, every RateLimit header exact", async () => {
    const limiter = recordingLimiter();
    // No call may time out however busy the machine: a lease answered after the timeout is lost
    // to this isolate (its units stay counted: safe, but the headers would no longer be exact).
    const send = gatewayWith({ COUNTERS: limiter.namespace, COUNTER_TIMEOUT_MS: "300000" });
    const who = freshIdentity();
    const rule = publishedRow(16);
    const { count, interval } = rule.limits[env.REGION as Region];
    // The window's reset (t) moves with the real clock the object reads, so it is held to the
    // seconds that passed since the first request, never to a fixed value (a busy machine is slow).
    const started = Date.now();
    for (let i = 1; i <= 100; i++) {
      const res = await send("/commits/x", { headers: { "x-api-key": who.apiKey } });
      expect(res.status).toBe(200);
      const [, remaining, reset] = /^"[^"]+";r=(\d+);t=(\d+)$/.exec(res.headers.get("ratelimit") ?? "") ?? [];
      expect(res.headers.get("ratelimit")).toMatch(new RegExp(`^"${rule.name}";`));
      expect(Number(remaining)).toBe(count - i);
      expect(Number(reset)).toBeLessThanOrEqual(interval);
      expect(Number(reset)).toBeGreaterThanOrEqual(interval - Math.ceil((Date.now() - started) / 1000) - 1);
    }
    // A lease from the first call on; slow start: 8, 16, 32, 64 units, each renewed in the
    // background as it runs out: only the first request is decided by a call.
    expect(limiter.calls.batches.reduce((n, hits) => n + hits, 0)).toBe(1);
    expect(limiter.calls.leases.slice(0, 3)).toEqual([8, 16, 32]);
  });
});
