// The whole run: bundle and start the targets, check them, pin them, warm them up, then for every
// round and shape drive each target in turn (the order rotating each round, so no target always
// runs first or last), and stop everything whatever happens.
import { access, constants, mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type { BenchOptions, Storage } from "./args.ts";
import { diffTotals, scrapeDecisionTotals, type DecisionTotals } from "./decision-mix.ts";
import { drive, measure, sendPrelude, type Measurement, type MeasureOptions } from "./drive.ts";
import { pin } from "./processes.ts";
import { probe } from "./probe.ts";
import { AFTER_RUN, BEFORE_RUN, waitForQuiet, type QuietOptions } from "./quiet.ts";
import { prepareTarget, type RunningTarget } from "./serving.ts";
import { expectationFor, planShape, type ShapePlan, type ShapeSizes } from "./shapes.ts";
import { SHAPE_NAMES, type ShapeName } from "./shape-names.ts";
import { checkoutAt, type Checkout } from "./before-checkout.ts";
import { targetSpec } from "./targets.ts";
import { isTollgate, type TargetName } from "./target-names.ts";
import { checkAnswers, type AnswerCheck } from "./verdict.ts";

export interface RunRecord {
  readonly round: number;
  readonly shape: ShapeName;
  readonly target: TargetName;
  /** Requests the measured run sent. */
  readonly sent: number;
  readonly measurement: Measurement;
  readonly check: AnswerCheck;
  /** Whether every target was quiet before the run started (see quiet.ts). */
  readonly quietBefore: boolean;
  /**
   * tollgate only (the gateway, and `before`): how the measured requests were decided (its
   * metrics after the run less before, the prelude excluded). Undefined when a scrape failed.
   */
  readonly decidedBy?: DecisionTotals;
}

export interface Machine {
  readonly cpus: number;
  readonly cpuModel: string;
  readonly loadAverageAtStart: readonly number[];
  readonly node: string;
}

export interface BenchResult {
  readonly startedAt: string;
  readonly machine: Machine;
  /** The directory the targets' Durable Objects kept their SQLite files in (one folder per target). */
  readonly storageDir: string;
  /** What was pinned where, or why nothing was. */
  readonly pinning: string;
  readonly runs: readonly RunRecord[];
  readonly wallSeconds: number;
  /** With --before: the revision the `before` target was built from, and its commit. */
  readonly before?: { readonly rev: string; readonly commit: string };
}

export type Progress = (line: string) => void;

/**
 * The shapes in the units a round alternates targets by: warm keys run right after new keys on
 * the same target, or its counters would have gone cold (workerd evicts an idle object after a
 * few seconds, and a cold pass is no warm one: docs/bench.md) while the other targets ran.
 */
export function shapeGroups(shapes: readonly ShapeName[]): ShapeName[][] {
  const groups: ShapeName[][] = [];
  for (const shape of SHAPE_NAMES.filter((s) => shapes.includes(s))) {
    if (shape === "warm-keys" && groups.at(-1)?.[0] === "new-keys") groups.at(-1)!.push(shape);
    else groups.push([shape]);
  }
  return groups;
}

/** The gateway's decision totals, or undefined (said in the progress) when they cannot be read. */
async function scrapeOrSay(target: RunningTarget, progress: Progress): Promise<DecisionTotals | undefined> {
  try {
    return await scrapeDecisionTotals(target);
  } catch (error) {
    progress(`${target.name}: could not read its metrics, the run's decision mix is left out: ${(error as Error).message}`);
    return undefined;
  }
}

/**
 * The prelude, then the measured run; for the gateway, its metrics read on either side of the
 * run, after the prelude, so a deny flood's exhausting requests are not counted. The reads fall
 * outside the run's time and CPU: before it starts, and once its CPU is taken.
 */
async function measureRun(
  target: RunningTarget,
  plan: ShapePlan,
  settle: QuietOptions | undefined,
  measuring: MeasureOptions,
  progress: Progress,
): Promise<{ measurement: Measurement; decidedBy?: DecisionTotals }> {
  await sendPrelude(target, plan);
  if (!isTollgate(target.name)) return { measurement: await measure(target, plan, settle, measuring) };
  const before = await scrapeOrSay(target, progress);
  const measurement = await measure(target, plan, settle, measuring);
  const after = before && (await scrapeOrSay(target, progress));
  return { measurement, decidedBy: before && after && diffTotals(after, before) };
}

/** Rotates the targets by the round, so each takes every position in turn. */
export function orderFor<T>(targets: readonly T[], round: number): T[] {
  const k = targets.length === 0 ? 0 : (round - 1) % targets.length;
  return [...targets.slice(k), ...targets.slice(0, k)];
}

function sizesOf(options: BenchOptions): ShapeSizes {
  return { keys: options.keys, warmPasses: options.warmPasses, requests: options.requests, burstFactor: options.burstFactor, connections: options.connections };
}

/** The warm-up runs every shape once, small: JIT and connection set-up out of the first round. */
function warmupSizes(options: BenchOptions): ShapeSizes {
  const n = options.warmup;
  return { keys: Math.min(n, options.keys), warmPasses: 1, requests: n, burstFactor: options.burstFactor, connections: options.connections };
}

/**
 * Client on CPU 0, servers on the others, so the load generator and the Workers never share a
 * core (on a 2-core machine: one each). Only where there are at least two CPUs and taskset works.
 */
export function pinAll(targets: readonly Pick<RunningTarget, "pids">[]): string {
  const n = availableParallelism();
  if (n < 2) return `not pinned: ${n} CPU`;
  const servers = n === 2 ? "1" : `1-${n - 1}`;
  const pinned = targets.every((t) => t.pids.every((pid) => pin(pid, servers))) && pin(process.pid, "0");
  return pinned ? `client (this process) on CPU 0, every workerd on CPU ${servers}` : "not pinned: taskset failed or is missing";
}

/** A RAM-backed file system on Linux; elsewhere `--storage tmpdir` is the choice. */
const RAM_DIR = "/dev/shm";

/**
 * A fresh directory for the targets' Durable Object storage. On one workerd the Worker and its
 * objects share a thread, and SQLite waits for an fsync on every commit (one per new identity's
 * first write, seen with strace), so on a disk the gateway's thread waits for the disk, which a
 * deployed gateway never does (its objects commit on their own machines). RAM keeps every commit
 * and its CPU, without that wait; `tmpdir` is Miniflare's and wrangler's own default.
 *
 * @throws Error when `ram` is asked for where there is no writable /dev/shm
 */
export async function storageRoot(storage: Storage, workdir: string): Promise<{ dir: string; owned: boolean }> {
  if (storage === "tmpdir") return { dir: join(workdir, "storage"), owned: false };
  try {
    await access(RAM_DIR, constants.W_OK);
  } catch {
    throw new Error(`--storage ram needs a writable ${RAM_DIR} (a RAM-backed file system); run with --storage tmpdir`);
  }
  return { dir: await mkdtemp(join(RAM_DIR, "tollgate-bench-")), owned: true };
}

export async function runBench(options: BenchOptions, progress: Progress): Promise<BenchResult> {
  const startedAt = new Date();
  const machine: Machine = { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? "unknown", loadAverageAtStart: loadavg(), node: process.version };
  const workdir = await mkdtemp(join(tmpdir(), "tollgate-bench-"));
  const running: RunningTarget[] = [];
  let storage: { dir: string; owned: boolean } | undefined;
  let checkout: Checkout | undefined;
  try {
    storage = await storageRoot(options.storage, workdir);
    const storageDir = storage.dir;
    if (options.before !== undefined) {
      checkout = await checkoutAt(options.before, join(workdir, "before-checkout"));
      progress(`before: ${checkout.rev} (commit ${checkout.commit}), checked out in ${checkout.dir}`);
    }
    const beforeDir = checkout?.dir;
    progress(`bundling ${options.targets.join(", ")} (${options.serving}), Durable Object storage in ${storageDir}...`);
    const prepared = await Promise.all(
      options.targets.map((name) => prepareTarget(targetSpec(name, beforeDir), options.serving, workdir, join(storageDir, name))),
    );
    // One at a time: the workerd processes that appear during a start belong to that target.
    for (const target of prepared) {
      const started = await target.start();
      running.push(started);
      progress(`${started.name} on ${started.url.origin} (workerd pid ${started.pids.join(", ")})`);
    }
    for (const target of running) await probe(target);
    const pinning = options.pin ? pinAll(running) : "not pinned (--no-pin)";
    progress(pinning);

    if (options.warmup > 0) {
      progress(`warm-up: every shape once, ${options.warmup} requests each, not measured`);
      // Its CPU is not measured, so it need not wait for deferred work.
      for (const target of running) for (const shape of options.shapes) await drive(target, planShape(shape, 0, warmupSizes(options)), BEFORE_RUN);
    }

    const runs: RunRecord[] = [];
    const everyPid = running.flatMap((t) => t.pids);
    for (let round = 1; round <= options.rounds; round++) {
      for (const group of shapeGroups(options.shapes)) {
        for (const target of orderFor(running, round)) {
          for (const [i, shape] of group.entries()) {
            const plan = planShape(shape, round, sizesOf(options));
            // Within a group the next shape follows at once, on counters still warm: no waiting
            // for quiet in between, so the first shape's CPU stops at its last answer.
            const first = i === 0;
            const last = i === group.length - 1;
            const { quiet } = first ? await waitForQuiet(everyPid, BEFORE_RUN) : { quiet: true };
            const { measurement, decidedBy } = await measureRun(target, plan, last ? AFTER_RUN : undefined, { instructions: options.instructions }, progress);
            const check = checkAnswers(expectationFor(plan, target.name), measurement, plan.amount);
            runs.push({ round, shape, target: target.name, sent: plan.amount, measurement, check, quietBefore: quiet, decidedBy });
            progress(
              `round ${round}/${options.rounds} ${shape} ${target.name}: ${Math.round(measurement.reqPerSec)} req/s, ${check.summary}${check.ok ? "" : " (!)"}`,
            );
          }
        }
      }
    }
    const wallSeconds = (Date.now() - startedAt.getTime()) / 1000;
    return {
      startedAt: startedAt.toISOString(),
      machine,
      storageDir,
      pinning,
      runs,
      wallSeconds,
      ...(checkout && { before: { rev: checkout.rev, commit: checkout.commit } }),
    };
  } finally {
    await Promise.allSettled(running.map((t) => t.stop()));
    await checkout?.remove().catch((error: unknown) => progress(`could not remove the --before worktree ${checkout!.dir}: ${(error as Error).message}`));
    await rm(workdir, { recursive: true, force: true });
    if (storage?.owned) await rm(storage.dir, { recursive: true, force: true });
  }
}
