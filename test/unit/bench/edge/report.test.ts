import { describe, expect, it } from "vitest";
import { objectActiveSecondsPerRequest, objectBusySecondsPerRequest, renderTable, rowsOf, type Measured } from "../../../../bench/edge/report.ts";
import { PRICES, OBJECT_GB } from "../../../../bench/edge/prices.ts";

const measured = (over: Partial<Measured>): Measured => ({
  mix: "heavy-25@50",
  rtt: { kind: "fixed", ms: 40 },
  k: 16,
  target: "gateway",
  latenciesMs: [],
  admitted: 0,
  denied: 0,
  failed: 0,
  wallMs: 1000,
  cpuMs: undefined,
  objectCalls: 0,
  counterCalls: 0,
  objectsTouched: 0,
  alarms: 0,
  busyMs: 0,
  rowsRead: 0,
  rowsWritten: 0,
  ...over,
});

// 1..100 ms: nearest-rank p50 50, p95 95, p99 99.
const ramp = Array.from({ length: 100 }, (_, i) => i + 1);

describe("rowsOf", () => {
  it("adds latency over the bare Worker's run paired with it (same mix, K and round trip), and counts per 1,000 requests", () => {
    const bare = measured({ target: "bare", latenciesMs: ramp.map(() => 2), admitted: 100 });
    const otherRound = measured({ target: "bare", rtt: { kind: "fixed", ms: 10 }, latenciesMs: ramp.map(() => 50), admitted: 100 });
    const gateway = measured({
      latenciesMs: ramp.map((v) => v + 2),
      admitted: 90,
      denied: 10,
      objectCalls: 50,
      counterCalls: 40,
      rowsWritten: 20,
      rowsRead: 5,
      cpuMs: 200,
    });
    const other = measured({ target: "bare", k: 64, latenciesMs: ramp.map(() => 100), admitted: 100 });
    const [, , row] = rowsOf([otherRound, bare, gateway, other]);
    expect(row!.added).toEqual({ p50: 50, p95: 95, p99: 99 });
    expect(row!.callsPer1000).toBe(500);
    expect(row!.counterCallsPer1000).toBe(400);
    expect(row!.rowsWrittenPer1000).toBe(200);
    expect(row!.rowsReadPer1000).toBe(50);
    expect(row!.cpuMsPerRequest).toBe(2);
  });

  it("a bare Worker adds nothing over itself and costs a Worker request and its CPU", () => {
    const [row] = rowsOf([measured({ target: "bare", latenciesMs: [3, 4], admitted: 2, cpuMs: 2 })]);
    expect(row!.added).toEqual({ p50: 0, p95: 0, p99: 0 });
    expect(row!.dollars.total).toBeCloseTo(0.3 + 0.02, 10);
  });

  it("no bare run to compare with: no added latency, not a made-up one", () => {
    const [row] = rowsOf([measured({ latenciesMs: [3], admitted: 1 })]);
    expect(row!.added).toEqual({ p50: null, p95: null, p99: null });
    expect(renderTable([row!])).toContain("heavy-25@50");
  });
});

describe("objectActiveSecondsPerRequest", () => {
  it("every touched object active for the whole run, shared by its requests", () => {
    expect(objectActiveSecondsPerRequest({ objectsTouched: 3, wallMs: 2000 }, 600)).toBeCloseTo(0.01, 12);
    expect(objectActiveSecondsPerRequest({ objectsTouched: 3, wallMs: 2000 }, 0)).toBe(0);
  });
});

describe("object duration: billed while busy, with the whole run as the upper bound", () => {
  it("the $ column prices the objects' busy time, the upper column every touched object for the whole run; alarms are billed requests", () => {
    // 1,000 requests over 10 s, 3 objects touched, busy 2 s between them, 4 alarms.
    const m = measured({ admitted: 1000, wallMs: 10_000, objectsTouched: 3, busyMs: 2000, alarms: 4, objectCalls: 100 });
    const [row] = rowsOf([m]);
    expect(objectBusySecondsPerRequest(m, 1000)).toBeCloseTo(0.002, 12);
    const calls = 1e6 * (104 / 1000) * PRICES.objectRequest;
    expect(row!.dollars.objects).toBeCloseTo(calls + 1e6 * 0.002 * OBJECT_GB * PRICES.objectGbSecond, 10);
    expect(row!.dollarsUpper.objects).toBeCloseTo(calls + 1e6 * 0.03 * OBJECT_GB * PRICES.objectGbSecond, 10);
    expect(row!.alarmsPer1000).toBe(4);
    expect(renderTable([row!])).toContain("$/M upper");
  });
});
