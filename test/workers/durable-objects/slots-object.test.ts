// The slots Durable Object in the Workers runtime: take, renew and release over RPC, concurrent
// takes for the last slot, restarts (eviction, a crash) keeping every held slot, and the clean-up.
import { env } from "cloudflare:workers";
import { abortAllDurableObjects, evictDurableObject, runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { SlotsObject } from "../../../src/durable-objects/slots-object.ts";

const LEASE = 30_000;
const T0 = 1_800_000_000_000;

/** A slots object whose clock the test drives (set again after each restart: a new instance). */
async function slotsAt(clock: { now: number }, name = `test:${crypto.randomUUID()}`) {
  const stub = env.SLOTS.getByName(name);
  await runInDurableObject(stub, (instance: SlotsObject) => {
    instance.now = () => clock.now;
  });
  return stub;
}

const take = (stub: DurableObjectStub<SlotsObject>, slot: string, limit = 3) => stub.take({ slot, limit, leaseMs: LEASE });
const stored = (stub: DurableObjectStub<SlotsObject>) =>
  runInDurableObject(stub, async (_, state) => ({ rows: [...state.storage.kv.list()].map(([key]) => key).sort(), alarm: await state.storage.getAlarm() }));

describe("the slots object over RPC", () => {
  it("grants up to the limit, refuses past it with the earliest lease's lapse as the hint, and frees a released slot for another", async () => {
    const clock = { now: T0 };
    const stub = await slotsAt(clock);
    expect(await take(stub, "a")).toEqual({ granted: true, slot: "a", until: T0 + LEASE, inUse: 1, limit: 3 });
    clock.now += 1_000;
    await take(stub, "b");
    await take(stub, "c");
    expect(await take(stub, "d")).toEqual({ granted: false, inUse: 3, limit: 3, retryInMs: LEASE - 1_000 });
    expect(await stub.release({ slot: "b" })).toBe(true);
    expect(await stub.release({ slot: "b" })).toBe(false);
    expect(await take(stub, "d")).toMatchObject({ granted: true, inUse: 3 });
  });

  it("gives the last slot to exactly one of many concurrent takes", async () => {
    const stub = await slotsAt({ now: T0 });
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => take(stub, `s${i}`, 7)));
    expect(answers.filter((a) => a.granted)).toHaveLength(7);
    expect(await stub.inUse()).toBe(7);
  });

  it("renews a held slot's lease; a slot not renewed in time lapses, and its renewal finds it gone", async () => {
    const clock = { now: T0 };
    const stub = await slotsAt(clock);
    await take(stub, "kept", 2);
    await take(stub, "lost", 2);
    clock.now = T0 + LEASE - 1;
    expect(await stub.renew({ slot: "kept", leaseMs: LEASE })).toEqual({ held: true, until: T0 + 2 * LEASE - 1 });
    clock.now = T0 + LEASE;
    expect(await stub.renew({ slot: "lost", leaseMs: LEASE })).toEqual({ held: false });
    expect(await stub.inUse()).toBe(1);
    expect(await take(stub, "newcomer", 2)).toMatchObject({ granted: true, inUse: 2 });
  });

  it("refuses calls it cannot read: no slot id, a lease out of bounds", async () => {
    const stub = await slotsAt({ now: T0 });
    await runInDurableObject(stub, (instance: SlotsObject) => {
      expect(() => instance.take({ slot: "", limit: 1, leaseMs: LEASE })).toThrow(/slot must be an id/);
      expect(() => instance.take({ slot: "a", limit: 1, leaseMs: 0 })).toThrow(/leaseMs must be/);
      expect(() => instance.renew({ slot: "a", leaseMs: 1e9 })).toThrow(/leaseMs must be/);
      expect(instance.inUse()).toBe(0);
    });
  });
});

describe("restarts keep every held slot", () => {
  for (const [how, restart] of [
    ["eviction", (stub: DurableObjectStub<SlotsObject>) => evictDurableObject(stub)],
    ["abort of every object (a crash)", () => abortAllDurableObjects()],
  ] as const) {
    it(`across ${how}: the held slots still count, renew and lapse as before`, async () => {
      const clock = { now: T0 };
      const name = `test:${crypto.randomUUID()}`;
      let stub = await slotsAt(clock, name);
      await take(stub, "a");
      clock.now += 5_000;
      await take(stub, "b");
      await stub.renew({ slot: "a", leaseMs: LEASE });
      await restart(stub);
      stub = await slotsAt(clock, name);
      expect(await stub.inUse()).toBe(2);
      expect(await take(stub, "c")).toMatchObject({ granted: true, inUse: 3 });
      expect(await take(stub, "d")).toMatchObject({ granted: false, retryInMs: LEASE });
      clock.now = T0 + 10_000;
      expect(await stub.renew({ slot: "b", leaseMs: LEASE })).toEqual({ held: true, until: T0 + 10_000 + LEASE });
      clock.now = T0 + 5_000 + LEASE;
      // a and c were last renewed or taken at T0 + 5 s: both lapsed; b was renewed since.
      expect(await stub.inUse()).toBe(1);
    });
  }
});

describe("clean-up", () => {
  it("stores a row per held slot and arms one alarm; once every lease lapsed the alarm leaves nothing behind", async () => {
    const clock = { now: T0 };
    const stub = await slotsAt(clock);
    await take(stub, "a");
    await take(stub, "b");
    await stub.renew({ slot: "a", leaseMs: LEASE });
    expect(await stored(stub)).toEqual({ rows: ["slot:a", "slot:b"], alarm: T0 + LEASE });
    await stub.release({ slot: "b" });
    // The alarm at the first lease's end finds a renewed at a later end: it sleeps until then.
    clock.now = T0 + LEASE - 1;
    await stub.renew({ slot: "a", leaseMs: LEASE });
    clock.now = T0 + LEASE;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(stub)).toEqual({ rows: ["slot:a"], alarm: T0 + 2 * LEASE - 1 });
    clock.now = T0 + 2 * LEASE - 1;
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    expect(await stored(stub)).toEqual({ rows: [], alarm: null });
  });
});
