// Concurrency slots across isolates: several region runtimes, each an isolate of its own (its own
// id, timers and renewals) on one driven clock, taking slots on one identity's slots object at
// once, in the Workers runtime with the real objects. No real waiting on a lease: the objects and
// the isolates share the test's clock, and renewals fire as the test moves it.
import { env } from "cloudflare:workers";
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env.ts";
import type { SlotsObject } from "../../../src/durable-objects/slots-object.ts";
import { holdSlot, type SlotHold } from "../../../src/gateway/concurrency.ts";
import { Isolate } from "../../../src/gateway/isolate.ts";
import type { RegionRuntime } from "../../../src/gateway/region-runtime.ts";
import { GatewayError } from "../../../src/http/gateway-error.ts";
import { ruleTables } from "../../../src/core/rules/tables.ts";
import { drivenTimers } from "../support/driven-timers.ts";
import { freshIdentity } from "../support/requests.ts";

const LEASE = 30_000;
const UUID = "67e55044-10b1-426f-9247-bb680e5fe0c8";
const PATH = `/threads/${UUID}/stream/events`;
/** The agent server's cap on what one address holds open (rules/agent-server.json). */
const IP_RULE = ruleTables["agent-server"].concurrency.find((rule) => rule.identity === "ip")!;

/**
 * The SLOTS namespace, every call tracked so the test can wait for the calls its renewals made;
 * `failing` makes the calls of the isolates it names throw, as an unreachable object would.
 */
function trackedSlots() {
  const pending = new Set<Promise<unknown>>();
  const failing = new Set<string>();
  const calls = { take: 0, renew: 0, release: 0 };
  const track = <T>(promise: Promise<T>) => {
    pending.add(promise);
    void promise.finally(() => pending.delete(promise)).catch(() => undefined);
    return promise;
  };
  const namespace = {
    jurisdiction: () => namespace,
    getByName(name: string) {
      const stub = env.SLOTS.getByName(name);
      const call = <K extends keyof typeof calls>(kind: K, slot: string, run: () => Promise<unknown>) => {
        calls[kind]++;
        const caller = slot.slice(0, slot.indexOf(":"));
        return track(failing.has(caller) ? Promise.reject(new Error("slots object unreachable")) : run());
      };
      return {
        take: (take: Parameters<SlotsObject["take"]>[0]) => call("take", take.slot, () => stub.take(take)),
        renew: (renewal: Parameters<SlotsObject["renew"]>[0]) => call("renew", renewal.slot, () => stub.renew(renewal)),
        release: (release: Parameters<SlotsObject["release"]>[0]) => call("release", release.slot, () => stub.release(release)),
      };
    },
  };
  /** Resolves once no tracked call is in flight. */
  const idle = async () => {
    while (pending.size > 0) await Promise.allSettled(pending);
  };
  return { namespace: namespace as unknown as Env["SLOTS"], idle, failing, calls };
}

/** K isolates, each with its own timers on one driven clock, and the identity they all serve. */
async function cluster(k: number, vars: Partial<Env> = {}) {
  const time = { now: 1_900_000_000_000 };
  const slots = trackedSlots();
  // No call may time out however busy the machine: time here is the driven clock's.
  const testEnv = { ...env, SLOTS: slots.namespace, COUNTER_TIMEOUT_MS: "300000", DECISION_LOG_SAMPLE: "0", ...vars } as Env;
  const isolates = Array.from({ length: k }, (_, i) => {
    const timers = drivenTimers(time);
    const isolate = new Isolate({ clock: { now: () => time.now, sleep: timers.sleep }, id: `isolate-${i}` });
    return { timers, runtime: isolate.runtime(testEnv) as RegionRuntime, vanished: false };
  });
  const ip = freshIdentity().ip;
  const runtime0 = isolates[0]!.runtime;
  const digest = runtime0.identityDigest({ kind: "ip", ip });
  // The identity's slots object reads the same clock.
  await runInDurableObject(env.SLOTS.getByName(`${runtime0.settings.region}:${IP_RULE.id}:${digest}`), (instance: SlotsObject) => {
    instance.now = () => time.now;
  });
  const request = { upstream: "agent-server" as const, method: "GET", path: PATH, identity: { kind: "ip" as const }, digest };
  return {
    time,
    slots,
    isolates,
    /** A slot on isolate `i`: the hold, or the refusal it threw. */
    async hold(i: number): Promise<SlotHold | GatewayError> {
      return holdSlot(isolates[i]!.runtime, request, (work) => void work)
        .then((hold) => hold ?? Promise.reject(new Error("the event stream is capped: a hold or a refusal was due")))
        .catch((error: unknown) => {
          if (error instanceof GatewayError) return error;
          throw error;
        });
    },
    /** Moves time on in steps no longer than `step`, firing every live isolate's due renewals and waiting for their calls. */
    async advance(ms: number, step = LEASE / 6) {
      const end = time.now + ms;
      while (time.now < end) {
        time.now = Math.min(end, time.now + step);
        for (const isolate of isolates) if (!isolate.vanished) await isolate.timers.fire();
        await slots.idle();
        for (const isolate of isolates) if (!isolate.vanished) await isolate.timers.fire();
        await slots.idle();
      }
    },
  };
}

const granted = (answers: readonly (SlotHold | GatewayError)[]) => answers.filter((a): a is SlotHold => !(a instanceof GatewayError));
const refused = (answers: readonly (SlotHold | GatewayError)[]) => answers.filter((a): a is GatewayError => a instanceof GatewayError);

describe("one identity's slots over several isolates", () => {
  const count = IP_RULE.limits.us.count;

  it.each([1, 4, 16])("%i isolates taking twice the limit at once: exactly count granted, the rest refused with 429 before anything is held", async (k) => {
    const c = await cluster(k);
    const answers = await Promise.all(Array.from({ length: 2 * count }, (_, i) => c.hold(i % k)));
    expect(granted(answers)).toHaveLength(count);
    expect(refused(answers)).toHaveLength(count);
    for (const refusal of refused(answers)) {
      expect(refusal.kind).toBe("quota-exceeded");
      expect(refusal.headers).toMatchObject({
        "ratelimit-policy": `"${IP_RULE.name}";q=${count};qu="concurrent-requests"`,
        ratelimit: `"${IP_RULE.name}";r=0`,
        "retry-after": String(LEASE / 1000),
      });
    }
    expect(new Set(granted(answers).map((hold) => hold.policy))).toEqual(new Set([`"${IP_RULE.name}";q=${count};qu="concurrent-requests"`]));
    const left = granted(answers)
      .map((hold) => Number(/;r=(\d+)$/.exec(hold.rateLimit)![1]))
      .sort((a, b) => a - b);
    expect(left).toEqual(Array.from({ length: count }, (_, i) => i));
  });

  it("a slot released on one isolate is taken on another, and only that one", async () => {
    const c = await cluster(3);
    const holds = granted(await Promise.all(Array.from({ length: count }, (_, i) => c.hold(i % 3))));
    expect(holds).toHaveLength(count);
    expect(await c.hold(2)).toBeInstanceOf(GatewayError);
    holds[0]!.release();
    holds[0]!.release(); // idempotent: frees one slot, not two
    await c.slots.idle();
    expect(c.slots.calls.release).toBe(1);
    expect(await c.hold(2)).not.toBeInstanceOf(GatewayError);
    expect(await c.hold(1)).toBeInstanceOf(GatewayError);
  });

  it("holders that keep renewing keep their slots across many leases; nothing lapses while they live", async () => {
    const c = await cluster(2);
    const holds = granted(await Promise.all(Array.from({ length: count }, (_, i) => c.hold(i % 2))));
    const lost: number[] = [];
    holds.forEach((hold, i) => void hold.lost.then(() => lost.push(i)));
    await c.advance(5 * LEASE);
    expect(lost).toEqual([]);
    expect(await c.hold(0)).toBeInstanceOf(GatewayError);
    expect(c.slots.calls.renew).toBeGreaterThanOrEqual(count * 5 * 2);
  });

  it("an isolate that vanishes (no renewal, no release) frees its slots one lease after its last renewal, not before; the living keep theirs", async () => {
    const c = await cluster(2);
    const living = granted([await c.hold(1)]);
    const gone = granted(await Promise.all(Array.from({ length: count - 1 }, () => c.hold(0))));
    expect(gone).toHaveLength(count - 1);
    c.isolates[0]!.vanished = true;
    await c.advance(LEASE - 1);
    expect(await c.hold(1)).toBeInstanceOf(GatewayError);
    await c.advance(1);
    const after = await Promise.all(Array.from({ length: count }, () => c.hold(1)));
    // Every vanished slot came back, and the living holder's did not.
    expect(granted(after)).toHaveLength(count - 1);
    let lost = false;
    void living[0]!.lost.then(() => (lost = true));
    await c.advance(LEASE);
    expect(lost).toBe(false);
  });

  it("a close that never arrives (release lost with its isolate) frees the slot after the lease too", async () => {
    const c = await cluster(2);
    const holds = granted(await Promise.all(Array.from({ length: count }, () => c.hold(0))));
    expect(holds).toHaveLength(count);
    // The socket closed, but its isolate died before the release went out.
    c.isolates[0]!.vanished = true;
    await c.advance(LEASE);
    expect(granted([await c.hold(1)])).toHaveLength(1);
  });

  it("a holder cut off from the object past its lease is told its slot is lost once the object says so and the slot went to another", async () => {
    const c = await cluster(2);
    const holds = granted(await Promise.all(Array.from({ length: count }, () => c.hold(0))));
    let lost = 0;
    for (const hold of holds) void hold.lost.then(() => lost++);
    c.slots.failing.add("isolate-0");
    await c.advance(LEASE);
    // Lapsed on the object: another isolate takes one.
    expect(granted([await c.hold(1)])).toHaveLength(1);
    c.slots.failing.delete("isolate-0");
    await c.advance(LEASE / 3);
    // Each renewal found its slot gone; count - 1 took one again, one found none free.
    expect(lost).toBe(1);
    expect(await c.hold(1)).toBeInstanceOf(GatewayError);
  });
});

describe("when the slots object fails at take time", () => {
  it("FAIL_MODE=open: each isolate's own book decides, at most count per isolate", async () => {
    const c = await cluster(2, { FAIL_MODE: "open" });
    c.slots.failing.add("isolate-0");
    const answers = await Promise.all(Array.from({ length: IP_RULE.limits.us.count + 3 }, () => c.hold(0)));
    expect(granted(answers)).toHaveLength(IP_RULE.limits.us.count);
    expect(granted(answers).every((hold) => hold.decidedBy === "local-fallback")).toBe(true);
    expect(c.isolates[0]!.runtime.concurrency.localSlots).toBe(IP_RULE.limits.us.count);
    granted(answers)[0]!.release();
    expect(c.isolates[0]!.runtime.concurrency.localSlots).toBe(IP_RULE.limits.us.count - 1);
  });

  it("FAIL_MODE=closed: 503 limiter-unavailable, nothing held", async () => {
    const c = await cluster(1, { FAIL_MODE: "closed" });
    c.slots.failing.add("isolate-0");
    const answer = await c.hold(0);
    expect(answer).toBeInstanceOf(GatewayError);
    expect((answer as GatewayError).kind).toBe("limiter-unavailable");
    expect((answer as GatewayError).headers["retry-after"]).toBe("1");
  });
});

describe("requests no concurrency rule caps", () => {
  it("get no slot: another path, or another upstream's table", async () => {
    const c = await cluster(1);
    const runtime = c.isolates[0]!.runtime;
    const digest = runtime.identityDigest({ kind: "ip", ip: freshIdentity().ip });
    const base = { method: "GET", identity: { kind: "ip" as const }, digest };
    expect(await holdSlot(runtime, { ...base, upstream: "agent-server", path: `/threads/${UUID}` }, undefined)).toBeUndefined();
    expect(await holdSlot(runtime, { ...base, upstream: "hosted-api", path: PATH }, undefined)).toBeUndefined();
    expect(c.slots.calls.take).toBe(0);
  });
});
