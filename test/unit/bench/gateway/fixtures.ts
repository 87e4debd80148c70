// Synthetic bench runs for the summary and report tests: figures chosen by hand, no server.
import type { RunRecord } from "../../../../bench/gateway/bench.ts";
import type { DecisionTotals } from "../../../../bench/gateway/decision-mix.ts";
import type { Measurement } from "../../../../bench/gateway/drive.ts";
import type { ShapeName } from "../../../../bench/gateway/shape-names.ts";
import type { TargetName } from "../../../../bench/gateway/target-names.ts";
import type { AnswerCheck } from "../../../../bench/gateway/verdict.ts";

export function run(
  round: number,
  shape: ShapeName,
  target: TargetName,
  reqPerSec: number,
  cpuMsPerRequest: number,
  check: AnswerCheck = { ok: true, summary: "200 x1000" },
  instructionsPerRequest?: number,
): RunRecord {
  const measurement: Measurement = {
    answered: 1000,
    errors: 0,
    statuses: { 200: 1000 },
    seconds: 1000 / reqPerSec,
    reqPerSec,
    p50Ms: 20,
    p99Ms: 80,
    cpuMsPerRequest,
    instructionsPerRequest,
    deferredCpuMsPerRequest: 0,
    settled: true,
    admitted: 1000,
  };
  return { round, shape, target, sent: 1000, measurement, check, quietBefore: true };
}

export const exactBurst: AnswerCheck = { ok: true, summary: "15/15 exact", burst: "exact" };
export const overBurst: AnswerCheck = {
  ok: false,
  summary: "16/15 OVER-ADMITTED",
  burst: "over-admitted",
  problem: "admitted 16 of a burst on one key whose limit is 15: the limit did not hold",
};

/** The gateway's decision totals of a run: every decision made one of the three ways. */
export const decided = (lease: number, denyCache: number, object: number, failures = 0): DecisionTotals => ({
  decisions: lease + denyCache + object,
  lease,
  denyCache,
  object,
  failures,
});
