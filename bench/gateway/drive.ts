// Runs one shape's plan against one running target with autocannon and measures it: answers by
// status, req/s, latency percentiles, and the CPU time and instructions the target's workerd
// processes used.
import autocannon from "autocannon";
import { startInstructionCount } from "./instructions.ts";
import { cpuMs } from "./processes.ts";
import { AFTER_RUN, waitForQuiet, type QuietOptions } from "./quiet.ts";
import type { RunningTarget } from "./serving.ts";
import type { ShapePlan } from "./shapes.ts";

export interface Measurement {
  /** Answers received (any status). */
  readonly answered: number;
  /** Connection errors and timeouts (requests never answered). */
  readonly errors: number;
  readonly statuses: Readonly<Record<string, number>>;
  readonly seconds: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /**
   * Server CPU per answered request, from the start of the run until the target was quiet again
   * (quiet.ts): work the run caused but deferred is the run's. Undefined when /proc is unreadable.
   */
  readonly cpuMsPerRequest: number | undefined;
  /**
   * User-mode instructions the target's workerd processes executed per answered request, over the
   * same span as `cpuMsPerRequest` (instructions.ts). Undefined unless asked for, or without perf.
   */
  readonly instructionsPerRequest: number | undefined;
  /** The part of the CPU spent after the last answer. */
  readonly deferredCpuMsPerRequest: number | undefined;
  /** Whether the target went quiet after the run (false: it gave up, and CPU may be short). */
  readonly settled: boolean;
  /** 2xx answers: for the burst, what was admitted. */
  readonly admitted: number;
}

/** Sends the prelude one request at a time (each must be answered before the next). */
export async function sendPrelude(target: RunningTarget, plan: ShapePlan): Promise<void> {
  const url = new URL(plan.route.path, target.url);
  for (const headers of plan.prelude) {
    const response = await fetch(url, { method: plan.route.method, headers });
    await response.arrayBuffer();
  }
}

const perRequest = (from: number | undefined, to: number | undefined, answered: number) =>
  from === undefined || to === undefined || answered === 0 ? undefined : (to - from) / answered;

/** What a run measures besides answers, rate, latency and CPU. */
export interface MeasureOptions {
  /**
   * Count instructions with perf (instructions.ts). Off by default: counting slows the workerd it
   * counts, so the req/s and CPU of a counted run are not those of an uncounted one (docs/bench.md).
   */
  readonly instructions?: boolean;
}

/** The prelude, then the measured run. */
export async function drive(
  target: RunningTarget,
  plan: ShapePlan,
  settle: QuietOptions | undefined = AFTER_RUN,
  options: MeasureOptions = {},
): Promise<Measurement> {
  await sendPrelude(target, plan);
  return measure(target, plan, settle, options);
}

/**
 * The measured run alone (the prelude sent already, or none).
 *
 * @param settle when the run is over for its CPU: once the target is quiet again (default), or,
 *   undefined, at its last answer (when the next run must follow at once)
 */
export async function measure(
  target: RunningTarget,
  plan: ShapePlan,
  settle: QuietOptions | undefined = AFTER_RUN,
  options: MeasureOptions = {},
): Promise<Measurement> {
  let next = 0;
  const instructions = options.instructions ? await startInstructionCount(target.pids) : undefined;
  const cpuBefore = cpuMs(target.pids);
  const started = process.hrtime.bigint();
  let lastAnswer = started;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url.origin,
        connections: plan.connections,
        amount: plan.amount,
        // A ceiling for a stuck answer, never a speed check.
        timeout: 60,
        // autocannon notices the end of a run on its next sampling tick (default every second).
        sampleInt: 100,
        requests: [
          {
            method: plan.route.method,
            path: plan.route.path,
            // Called once per request sent, in order (autocannon builds each request when it sends it).
            setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...plan.headersFor(next++) } }),
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
    // autocannon's own duration runs to the tick after the end, longer than the traffic: the
    // rate is taken to the last answer instead.
    instance.on("response", () => {
      lastAnswer = process.hrtime.bigint();
    });
  });
  const seconds = Number(lastAnswer - started) / 1e9;
  const cpuAtEnd = cpuMs(target.pids);
  const { quiet } = settle === undefined ? { quiet: true } : await waitForQuiet(target.pids, settle);
  const cpuAfter = cpuMs(target.pids);
  const instructionsCounted = await instructions?.stop();

  const statuses: Record<string, number> = {};
  for (const [status, { count = 0 }] of Object.entries(result.statusCodeStats ?? {})) statuses[status] = count;
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  const admitted = Object.entries(statuses)
    .filter(([status]) => status.startsWith("2"))
    .reduce((a, [, n]) => a + n, 0);
  return {
    answered,
    errors: result.errors,
    statuses,
    seconds,
    reqPerSec: seconds > 0 ? answered / seconds : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    cpuMsPerRequest: perRequest(cpuBefore, cpuAfter, answered),
    instructionsPerRequest: perRequest(0, instructionsCounted, answered),
    deferredCpuMsPerRequest: perRequest(cpuAtEnd, cpuAfter, answered),
    settled: quiet,
    admitted,
  };
}
