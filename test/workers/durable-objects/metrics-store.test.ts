// The region's metrics object in the Workers runtime: what a hand-over writes (storage is billed by
// rows written, and every isolate hands a batch over every METRICS_FLUSH_MS), and that its totals
// survive an eviction in every layout it may find in storage.
import { env } from "cloudflare:workers";
import { evictDurableObject, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { emptyBatch, recordDecision, SERIES_BUCKET_MS, SERIES_KEEP_MS, type MetricsBatch } from "../../../src/core/metrics/aggregate.ts";
import { RECENT_SERIES_MS, type MetricsStore } from "../../../src/durable-objects/metrics-store.ts";

const T0 = 1_800_000_000_000;

/** A metrics object whose clock the test drives. */
async function storeAt(clock: { now: number }) {
  const stub = env.METRICS.getByName(`metrics-test:${crypto.randomUUID()}`);
  await useClock(stub, clock);
  return stub;
}
const useClock = (stub: DurableObjectStub<MetricsStore>, clock: { now: number }) =>
  runInDurableObject(stub, (instance: MetricsStore) => {
    instance.now = () => clock.now;
  });

/** One isolate's batch: `n` admissions on rule 7 at `at`. */
function batchAt(at: number, n = 1): MetricsBatch {
  const batch = emptyBatch();
  for (let i = 0; i < n; i++) recordDecision(batch, { rule: 7, ruleName: "seven", outcome: "admitted", limit: { count: 1000, interval: 10 } }, at);
  return batch;
}

/** Rows written (puts and deletes) by what `act` does to the object, counted on its own storage. */
async function rowsWritten(stub: DurableObjectStub<MetricsStore>, act: () => Promise<void>): Promise<number> {
  let written = 0;
  await runInDurableObject(stub, (_, state) => {
    const kv = state.storage.kv;
    const put = kv.put.bind(kv);
    const del = kv.delete.bind(kv);
    kv.put = (...a: Parameters<typeof put>) => (written++, put(...a));
    kv.delete = (...a: Parameters<typeof del>) => (written++, del(...a));
  });
  await act();
  return written;
}

const admitted = (totals: MetricsBatch) => totals.rules["7"]?.outcomes.admitted ?? 0;
const seriesAdmitted = (totals: MetricsBatch) => Object.values(totals.series).reduce((n, bucket) => n + (bucket["7"]?.admitted ?? 0), 0);

describe("MetricsStore", () => {
  it("a hand-over writes one row; a series bucket gets a row of its own once, as it leaves the recent span", async () => {
    const clock = { now: T0 };
    const stub = await storeAt(clock);
    // 16 isolates handing over every 10 s for 3 minutes: 288 hand-overs, 18 buckets.
    const handOvers = 16 * 18;
    const written = await rowsWritten(stub, async () => {
      for (let i = 0; i < handOvers; i++) {
        clock.now = T0 + Math.floor((i * SERIES_BUCKET_MS) / 16);
        await stub.add(batchAt(clock.now));
      }
    });
    // One row per hand-over, and each bucket's own row once it is older than the recent span
    // (those still recent at the end have none yet). A row per total and per bucket touched was
    // at least four per hand-over.
    const buckets = handOvers / 16;
    expect(written).toBeLessThanOrEqual(handOvers + buckets);
    expect(written).toBeGreaterThanOrEqual(handOvers);
    const totals = await stub.totals();
    expect(admitted(totals)).toBe(handOvers);
    expect(seriesAdmitted(totals)).toBe(handOvers);
  });

  it("keeps every count across an eviction: recent buckets, older buckets, and a late batch for an old bucket", async () => {
    const clock = { now: T0 };
    const stub = await storeAt(clock);
    for (let i = 0; i < 30; i++) {
      clock.now = T0 + i * 5_000;
      await stub.add(batchAt(clock.now, 2));
    }
    // A batch an isolate could not hand over for two minutes: its bucket is no longer recent.
    await stub.add(batchAt(clock.now - 2 * RECENT_SERIES_MS, 3));
    const before = await stub.totals();
    expect(admitted(before)).toBe(63);
    expect(seriesAdmitted(before)).toBe(63);
    await evictDurableObject(stub);
    await useClock(stub, clock);
    const after = await stub.totals();
    expect(after).toEqual(before);
    // And after one more hand-over and another eviction.
    clock.now += 1_000;
    await stub.add(batchAt(clock.now));
    await evictDurableObject(stub);
    await useClock(stub, clock);
    expect(seriesAdmitted(await stub.totals())).toBe(64);
    expect(admitted(await stub.totals())).toBe(64);
  });

  it("reads the layout before the totals row (a row per total and per bucket), and leaves none of it once it has written its own", async () => {
    const clock = { now: T0 };
    const stub = await storeAt(clock);
    const old = batchAt(T0 - 30_000, 4);
    const older = batchAt(T0 - 5 * RECENT_SERIES_MS, 5);
    await runInDurableObject(stub, (_, state) => {
      const kv = state.storage.kv;
      const rules = emptyBatch().rules;
      Object.assign(rules, old.rules);
      rules["7"]!.outcomes.admitted = 9;
      kv.put("rules", rules);
      kv.put("upstreams", {});
      kv.put("limited", {});
      for (const b of [old, older]) for (const [at, points] of Object.entries(b.series)) kv.put(`series:${at.padStart(15, "0")}`, points);
    });
    await evictDurableObject(stub);
    await useClock(stub, clock);
    expect(admitted(await stub.totals())).toBe(9);
    expect(seriesAdmitted(await stub.totals())).toBe(9);
    await stub.add(batchAt(T0 - 29_000));
    const keys = await runInDurableObject(stub, (_, state) => [...state.storage.kv.list()].map(([key]) => key));
    expect(keys).not.toContain("rules");
    expect(keys).not.toContain("upstreams");
    expect(keys).not.toContain("limited");
    await evictDurableObject(stub);
    await useClock(stub, clock);
    const totals = await stub.totals();
    expect(admitted(totals)).toBe(10);
    expect(seriesAdmitted(totals)).toBe(10);
    // Both buckets still there, the recent one with the new admission.
    expect(totals.series[String(T0 - 30_000)]?.["7"]?.admitted).toBe(5);
    expect(totals.series[String(T0 - 5 * RECENT_SERIES_MS)]?.["7"]?.admitted).toBe(5);
  });

  it("deletes a bucket's row once it is older than the series keep", async () => {
    const clock = { now: T0 };
    const stub = await storeAt(clock);
    for (let i = 0; i < 10; i++) {
      clock.now = T0 + i * SERIES_BUCKET_MS;
      await stub.add(batchAt(clock.now));
    }
    clock.now = T0 + SERIES_KEEP_MS + 20 * SERIES_BUCKET_MS;
    await stub.add(batchAt(clock.now));
    const keys = await runInDurableObject(stub, (_, state) => [...state.storage.kv.list({ prefix: "series:" })].map(([key]) => key));
    expect(keys).toEqual([]);
    await evictDurableObject(stub);
    await useClock(stub, clock);
    expect(seriesAdmitted(await stub.totals())).toBe(1);
    expect(admitted(await stub.totals())).toBe(11);
  });
});
