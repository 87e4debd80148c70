// One client served by many isolates at once, the way the edge serves it: K gateways in one
// runtime, each an isolate of its own (its own leases, deny cache, fallback windows, coalescer,
// overrides copy), sharing one set of counter objects, all on clocks the test drives. The same
// scenarios as `npm run bench:accuracy`, in fake time, so nothing here depends on the machine.
import { env } from "cloudflare:workers";
import { createExecutionContext } from "cloudflare:test";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { Env } from "../../../src/env.ts";
import { createWorker } from "../../../src/worker.ts";
import { maxInAnyWindow } from "../../unit/core/limiter/reference-model.ts";
import { memoryLimiter } from "../support/memory-limiter.ts";
import { drivenTimers } from "../support/driven-timers.ts";
import { freshIdentity } from "../support/requests.ts";
import { LOCAL_BINDINGS } from "../../../tools/local-bindings.ts";

/** Health, on the admin host the tests' gateways serve it on (docs/admin.md). */
const HEALTH = `https://${LOCAL_BINDINGS.ADMIN_HOSTS}/_tollgate/health`;

/** Row 5 of the published table: 100 per 60 s per API key, in both regions. */
const ROW = { path: "/repos/acme/agent", count: 100, intervalMs: 60_000 };
const KS = [1, 4, 16, 64];

/** One answer as the client saw it: when (the driven clock), admitted or not, and Retry-After. */
interface Seen {
  readonly at: number;
  readonly allowed: boolean;
  readonly retryAfter?: number;
}

/**
 * K gateways sharing counter objects run in memory on the driven clock. Isolate i's clock runs
 * `skewMs(i)` ahead of the objects'. `evict(i)` replaces isolate i by a fresh one (its memory, leases
 * included, lost); the limiter's `faults.fail` and `restart()` make the objects fail or forget.
 */
function cluster(k: number, skewMs: (i: number) => number = () => 0, answerMs = 0) {
  const clock = { now: 1_900_000_000_000 };
  const limiter = memoryLimiter(() => clock.now, undefined, { answered: () => (clock.now += answerMs) });
  // No call may time out however busy the machine: time here is the driven clock's.
  const testEnv = { ...env, ...limiter.env, COUNTER_TIMEOUT_MS: "300000", DECISION_LOG_SAMPLE: "0" } as Env;
  // Timers on the driven clock: leases given back at their end fire as the test moves time.
  const { fire, sleep } = drivenTimers(clock);
  const make = (i: number) => createWorker({ clock: { now: () => clock.now + skewMs(i), sleep } });
  const gateways = Array.from({ length: k }, (_, i) => make(i));
  const apiKey = freshIdentity().apiKey;
  const seen: Seen[] = [];
  return {
    clock,
    limiter,
    seen,
    evict: (i: number) => {
      gateways[i] = make(i);
    },
    /** Any request through isolate `i`. */
    async fetch(i: number, path: string, init: RequestInit = {}): Promise<Response> {
      // Leases due back by now are given back first, as their timers would have.
      await fire();
      // Work after the response (leases given back at their end) waits on the driven clock: not awaited here.
      return gateways[i % k]!.fetch(new Request(path.startsWith("https://") ? path : `https://gateway.test${path}`, init), testEnv, createExecutionContext());
    },
    /** One request of the client through isolate `i`. */
    async send(i: number): Promise<Seen> {
      const res = await this.fetch(i, ROW.path, { headers: { "x-api-key": apiKey } });
      await res.body?.cancel();
      expect([200, 429]).toContain(res.status);
      const answer = { at: clock.now, allowed: res.status === 200, ...(res.status === 429 && { retryAfter: Number(res.headers.get("retry-after")) }) };
      seen.push(answer);
      return answer;
    },
  };
}

const admissions = (seen: readonly Seen[]) => seen.filter((s) => s.allowed).map((s) => s.at);

/** 429s answered while fewer than `count` admissions were in their window: refusals a client within its limit met. */
function early(seen: readonly Seen[]): Seen[] {
  const times = admissions(seen);
  return seen.filter((s) => !s.allowed && times.filter((t) => t > s.at - ROW.intervalMs && t <= s.at).length < ROW.count);
}

describe.each(KS)("one client over %i isolates", (k) => {
  it("sequential, round-robin: exactly count admitted, the first 429 at count + 1, and a retry at Retry-After admitted", async () => {
    const c = cluster(k);
    let i = 0;
    let refused: Seen | undefined;
    while (!refused) {
      const answer = await c.send(i++);
      if (!answer.allowed) refused = answer;
      c.clock.now += 10;
    }
    expect(admissions(c.seen)).toHaveLength(ROW.count);
    expect(early(c.seen)).toEqual([]);
    // The first admission leaves the window 60 s after it: Retry-After says so, in whole seconds.
    c.clock.now = refused.at + refused.retryAfter! * 1000;
    expect((await c.send(i++)).allowed).toBe(true);
    expect(maxInAnyWindow(admissions(c.seen), ROW.intervalMs)).toBeLessThanOrEqual(ROW.count);
  });

  it("concurrent: 2 x count at once over every isolate, exactly count admitted", async () => {
    const c = cluster(k);
    await Promise.all(Array.from({ length: 2 * ROW.count }, (_, i) => c.send(i)));
    expect(admissions(c.seen)).toHaveLength(ROW.count);
    expect(early(c.seen)).toEqual([]);
  });

  it("steady at 90% of the limit across three window edges: every request admitted", async () => {
    const c = cluster(k);
    const gap = Math.floor(ROW.intervalMs / (0.9 * ROW.count));
    for (let i = 0; i < 3 * 0.9 * ROW.count; i++) {
      await c.send(i);
      c.clock.now += gap;
    }
    expect(c.seen.every((s) => s.allowed)).toBe(true);
  });

  it("warm many isolates, then use one: at least 99% of count admitted in the window", async () => {
    const c = cluster(k);
    for (let i = 0; i < k && c.seen.length < ROW.count; i++) {
      for (let j = 0; j < 2; j++) {
        await c.send(i);
        c.clock.now += 1;
      }
    }
    while ((await c.send(0)).allowed) c.clock.now += 1;
    expect(admissions(c.seen).length).toBeGreaterThanOrEqual(0.99 * ROW.count);
    expect(admissions(c.seen).length).toBeLessThanOrEqual(ROW.count);
  });

  it("clocks 50 ms apart: round-robin and warm-then-one stay exact", async () => {
    const c = cluster(k, (i) => (i % 2 === 0 ? 50 : -50));
    for (let i = 0; i < k; i++) await c.send(i);
    let i = 0;
    while ((await c.send(i++)).allowed) c.clock.now += 7;
    expect(admissions(c.seen)).toHaveLength(ROW.count);
    expect(early(c.seen)).toEqual([]);
    // A window later, the client's whole budget again, every admission within the limit.
    c.clock.now += ROW.intervalMs;
    while ((await c.send(0)).allowed) c.clock.now += 3;
    expect(maxInAnyWindow(admissions(c.seen), ROW.intervalMs)).toBeLessThanOrEqual(ROW.count);
    expect(early(c.seen)).toEqual([]);
  });
});

describe("deny cache", () => {
  it("a cached denial never outlasts the object's answer, however long the answer took to arrive", async () => {
    // Every answer arrives 30 ms after the object decided.
    const c = cluster(1, () => 0, 30);
    let refused: Seen | undefined;
    while (!refused) {
      const answer = await c.send(0);
      if (!answer.allowed) refused = answer;
    }
    // The first admission was decided 30 ms before its answer arrived: the window frees a unit
    // 60 s after that decision, and the isolate asks the object again by then.
    const firstDecided = c.seen[0]!.at - 30;
    c.clock.now = firstDecided + ROW.intervalMs;
    expect((await c.send(0)).allowed).toBe(true);
  });
});

describe("deny cache and leases held elsewhere", () => {
  it("a denial cached only until another isolate's lease ends still tells the window's own Retry-After", async () => {
    const c = cluster(2);
    // Isolate 0 calls first and is lent units it never uses; then isolate 1 takes the rest, its
    // last requests waiting for isolate 0's lease to come back.
    await c.send(0);
    for (let i = 0; i < ROW.count + 5; i++) {
      await c.send(1);
      c.clock.now += 1;
    }
    const refusals = c.seen.filter((s) => !s.allowed);
    expect(refusals.length).toBeGreaterThan(1);
    // Room frees when the first admission leaves the window, 60 s after it: every 429 says so,
    // those answered from the deny cache included (cached only until the lease's end).
    const firstAt = c.seen[0]!.at;
    expect(refusals.map((s) => s.retryAfter)).toEqual(refusals.map((s) => Math.ceil((firstAt + ROW.intervalMs - s.at) / 1000)));
  });
});

describe("faults across isolates", () => {
  it("property: objects restarted, isolates evicted with leases out, clocks apart: never more than count in any window", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 8 }),
        fc.array(
          fc.record({
            isolate: fc.nat({ max: 7 }),
            gap: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 70_000 })),
            event: fc.constantFrom("send", "send", "send", "send", "send", "send", "restart", "evict"),
          }),
          { minLength: 1, maxLength: 250 },
        ),
        async (k, steps) => {
          const c = cluster(k, (i) => ((i * 37) % 101) - 50);
          for (const { isolate, gap, event } of steps) {
            c.clock.now += gap;
            if (event === "restart") c.limiter.restart();
            else if (event === "evict") c.evict(isolate % k);
            else await c.send(isolate);
          }
          expect(maxInAnyWindow(admissions(c.seen), ROW.intervalMs)).toBeLessThanOrEqual(ROW.count);
        },
      ),
      { numRuns: 25, seed: 20261125 },
    );
  });

  it("an object that fails for all isolates: each admits at most count from its own window, and once it answers it counts them all", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const k = 4;
    const c = cluster(k);
    for (let i = 0; i < 40; i++) await c.send(i);
    c.limiter.faults.fail = true;
    // Each isolate saw the object at 40 used (its own last answer at most): the declared bound is
    // count per isolate per window, K x count in all.
    for (let i = 0; i < 4 * ROW.count; i++) await c.send(i);
    const during = admissions(c.seen).length;
    expect(during).toBeLessThanOrEqual(k * ROW.count);
    // Each isolate says so: its health is degraded, stating the bound.
    const health = await (await c.fetch(1, HEALTH)).json<{ status: string; detail: string }>();
    expect(health).toEqual({ status: "degraded", detail: expect.stringContaining("at most count per window") });
    c.limiter.faults.fail = false;
    c.clock.now += 1_000;
    // Back: every local admission is reported, and the object refuses until the window has room.
    const after = await Promise.all(Array.from({ length: k }, (_, i) => c.send(i)));
    expect(after.every((s) => !s.allowed)).toBe(true);
    expect(await (await c.fetch(1, HEALTH)).json()).toEqual({ status: "ok" });
    vi.restoreAllMocks();
  });
});
