import { describe, expect, it } from "vitest";
import { dollarsPerMillion, OBJECT_GB, PRICES } from "../../../../bench/edge/prices.ts";

const none = { workerRequests: 0, cpuMs: 0, objectCalls: 0, objectActiveSeconds: 0, rowsRead: 0, rowsWritten: 0 };

describe("dollarsPerMillion", () => {
  it("a bare Worker request with 1 ms of CPU: $0.30 + $0.02 per million", () => {
    const d = dollarsPerMillion({ ...none, workerRequests: 1, cpuMs: 1 });
    expect(d.workers).toBeCloseTo(0.32, 10);
    expect(d.total).toBeCloseTo(0.32, 10);
  });

  it("an object call per request adds $0.15 per million, a row written $1.00, a row read $0.001", () => {
    expect(dollarsPerMillion({ ...none, objectCalls: 1 }).objects).toBeCloseTo(0.15, 10);
    expect(dollarsPerMillion({ ...none, rowsWritten: 1 }).rows).toBeCloseTo(1, 10);
    expect(dollarsPerMillion({ ...none, rowsRead: 1 }).rows).toBeCloseTo(0.001, 10);
  });

  it("duration at 128 MB: one active second per request is 0.125 GB-s, $1.5625 per million", () => {
    expect(OBJECT_GB).toBe(0.125);
    expect(dollarsPerMillion({ ...none, objectActiveSeconds: 1 }).objects).toBeCloseTo(0.125 * 12.5, 10);
  });

  it("the total is the sum of its parts", () => {
    const d = dollarsPerMillion({ workerRequests: 1, cpuMs: 2, objectCalls: 1, objectActiveSeconds: 0.01, rowsRead: 3, rowsWritten: 1 });
    expect(d.total).toBeCloseTo(d.workers + d.objects + d.rows, 12);
    expect(d.total).toBeCloseTo(
      1e6 *
        (PRICES.workerRequest +
          2 * PRICES.workerCpuMs +
          PRICES.objectRequest +
          0.01 * OBJECT_GB * PRICES.objectGbSecond +
          3 * PRICES.rowRead +
          PRICES.rowWritten),
      12,
    );
  });
});
