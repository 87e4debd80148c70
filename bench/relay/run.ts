// The whole run: bundle the targets and the upstream once, then each round start every target
// afresh (a held socket's memory is read on a workerd that has never held one), read what the
// held sockets cost, warm up, and run every workload on every target in turn, the order rotating
// each round, so no target always runs first or last. Everything is stopped whatever happens.
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import type WebSocket from "ws";
import { checkoutAt, type Checkout } from "../gateway/before-checkout.ts";
import { orderFor, pinAll, storageRoot, type Machine } from "../gateway/bench.ts";
import { pin } from "../gateway/processes.ts";
import { BEFORE_RUN, waitForQuiet, type QuietOptions } from "../gateway/quiet.ts";
import type { RelayOptions } from "./args.ts";
import { closeAll, holdSockets, openSocket, pumpCommands, receiveEvents, socketUrl } from "./client.ts";
import { cpuNs } from "./cpu.ts";
import { EVENT_BYTES_PARAM, EVENTS_PARAM, smallCommand } from "./frames.ts";
import { rssBytes } from "./memory.ts";
import { buildUpstream, prepareRelay, type RunningRelay } from "./serve.ts";
import { RELAY_TARGET_NAMES, type RelayTargetName } from "./target-names.ts";
import { relayTargetSpec } from "./targets.ts";
import { EVENT_BYTES, FRAMES_KEY, framesFor, holdKey, splitFrames, WORKLOAD_NAMES, WORKLOADS, type WorkloadName } from "./workloads.ts";

/** Sockets a frame run spreads its frames over, and the commands each may have unanswered. */
export const FRAME_SOCKETS = 4;
export const COMMAND_WINDOW = 16;
/** Sockets opened at once while the held ones are opened. */
const OPEN_CONCURRENCY = 32;
/** Small commands per socket in the warm-up, per workload and target (not measured). */
const WARMUP_FRAMES = 500;

/**
 * After a run, or after sockets were opened: quiet for half a second, so work the frames left
 * behind (a deferred flush, a close) is counted with them and done before memory is read.
 */
const SETTLED: QuietOptions = { windowMs: 500, maxShare: 0.04, giveUpMs: 10_000 };

export interface FrameRun {
  readonly round: number;
  readonly workload: WorkloadName;
  readonly target: RelayTargetName;
  readonly frames: number;
  /** workerd's CPU over the run (undefined where /proc cannot be read). */
  readonly cpuNs: number | undefined;
  readonly wallMs: number;
  /** Whether every target was quiet before the run started (gateway/quiet.ts). */
  readonly quietBefore: boolean;
}

export interface HoldRun {
  readonly round: number;
  readonly target: RelayTargetName;
  readonly sockets: number;
  /** workerd's resident memory before the first socket and with `sockets` held (undefined where unreadable). */
  readonly rssBeforeBytes: number | undefined;
  readonly rssBytes: number | undefined;
}

export interface RelayResult {
  readonly startedAt: string;
  readonly machine: Machine;
  readonly pinning: string;
  readonly targets: readonly RelayTargetName[];
  readonly frameRuns: readonly FrameRun[];
  readonly holdRuns: readonly HoldRun[];
  readonly wallSeconds: number;
  readonly before?: { readonly rev: string; readonly commit: string };
}

export type Progress = (line: string) => void;

/** One workload's frames through one target: sockets opened first, CPU read around the frames alone. */
async function measureFrames(target: RunningRelay, workload: WorkloadName, frames: number, everyPid: readonly number[], round: number): Promise<FrameRun> {
  const perSocket = splitFrames(frames, FRAME_SOCKETS);
  const sockets = await Promise.all(
    perSocket.map((n) => openSocket(socketUrl(target.url, workload === "events" ? { [EVENTS_PARAM]: n, [EVENT_BYTES_PARAM]: EVENT_BYTES } : {}), FRAMES_KEY)),
  );
  try {
    const { quiet } = await waitForQuiet(everyPid, BEFORE_RUN);
    const cpuBefore = cpuNs(target.pids);
    const started = performance.now();
    await Promise.all(
      sockets.map((socket, i) =>
        workload === "events" ? receiveEvents(socket, perSocket[i]!) : pumpCommands(socket, perSocket[i]!, WORKLOADS[workload].frame, COMMAND_WINDOW),
      ),
    );
    const wallMs = performance.now() - started;
    await waitForQuiet(target.pids, SETTLED);
    const cpuAfter = cpuNs(target.pids);
    const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    return { round, workload, target: target.name, frames, cpuNs: cpu, wallMs, quietBefore: quiet };
  } finally {
    await closeAll(sockets);
  }
}

/** Sockets held through one target, level by level, each answered one command; memory read at each level once settled. */
async function measureHolding(target: RunningRelay, levels: readonly number[], everyPid: readonly number[], round: number): Promise<HoldRun[]> {
  await waitForQuiet(everyPid, BEFORE_RUN);
  const rssBeforeBytes = rssBytes(target.pids);
  const held: WebSocket[] = [];
  const runs: HoldRun[] = [];
  try {
    for (const level of levels) {
      const first = held.length;
      const opened = await holdSockets(
        level - first,
        (i) => openSocket(socketUrl(target.url), holdKey(first + i)),
        OPEN_CONCURRENCY,
        (socket) => pumpCommands(socket, 1, smallCommand, 1),
      );
      held.push(...opened);
      await waitForQuiet(target.pids, SETTLED);
      runs.push({ round, target: target.name, sockets: level, rssBeforeBytes, rssBytes: rssBytes(target.pids) });
    }
  } finally {
    await closeAll(held);
  }
  return runs;
}

export async function runRelayBench(options: RelayOptions, progress: Progress): Promise<RelayResult> {
  const startedAt = new Date();
  const machine: Machine = { cpus: availableParallelism(), cpuModel: cpus()[0]?.model ?? "unknown", loadAverageAtStart: loadavg(), node: process.version };
  const workdir = await mkdtemp(join(tmpdir(), "tollgate-relay-bench-"));
  const targets = RELAY_TARGET_NAMES.filter((name) => name !== "before" || options.before !== undefined);
  let running: RunningRelay[] = [];
  let storage: { dir: string; owned: boolean } | undefined;
  let checkout: Checkout | undefined;
  try {
    storage = await storageRoot("ram", workdir);
    if (options.before !== undefined) {
      checkout = await checkoutAt(options.before, join(workdir, "before-checkout"));
      progress(`before: ${checkout.rev} (commit ${checkout.commit}), checked out in ${checkout.dir}`);
    }
    progress(`bundling ${targets.join(", ")} and the upstream...`);
    const upstream = await buildUpstream(workdir);
    const prepared = await Promise.all(targets.map((name) => prepareRelay(name, relayTargetSpec(name, checkout?.dir), workdir, upstream)));

    const frameRuns: FrameRun[] = [];
    const holdRuns: HoldRun[] = [];
    let pinning = "";
    for (let round = 1; round <= options.rounds; round++) {
      // A workerd inherits this process's CPUs: pinned to CPU 0 by the round before, it would
      // start the next round's targets on the client's core.
      if (options.pin && machine.cpus > 1) pin(process.pid, `0-${machine.cpus - 1}`);
      // One at a time: the workerd processes that appear during a start belong to that target.
      for (const target of prepared) running.push(await target.start(join(storage.dir, `${target.name}-${round}`)));
      progress(`round ${round}/${options.rounds}: ${running.map((t) => `${t.name} on ${t.url.origin} (workerd ${t.pids.join(", ")})`).join("; ")}`);
      pinning = options.pin ? pinAll(running) : "not pinned (--no-pin)";
      const everyPid = running.flatMap((t) => t.pids);

      for (const target of orderFor(running, round)) {
        const runs = await measureHolding(target, options.sockets, everyPid, round);
        holdRuns.push(...runs);
        const last = runs.at(-1)!;
        const perSocket = last.rssBytes !== undefined && last.rssBeforeBytes !== undefined ? (last.rssBytes - last.rssBeforeBytes) / last.sockets / 1024 : NaN;
        progress(`round ${round} held ${target.name}: ${last.sockets} sockets, ${perSocket.toFixed(1)} KB each`);
      }

      // Warm-up: every workload once, small, not measured: the JIT and the counters out of the first run.
      for (const target of running)
        for (const workload of WORKLOAD_NAMES) await measureFrames(target, workload, WARMUP_FRAMES * FRAME_SOCKETS, everyPid, round);

      for (const workload of WORKLOAD_NAMES) {
        for (const target of orderFor(running, round)) {
          const run = await measureFrames(target, workload, framesFor(workload, options.frames, FRAME_SOCKETS), everyPid, round);
          frameRuns.push(run);
          const us = run.cpuNs === undefined ? "-" : (run.cpuNs / 1000 / run.frames).toFixed(1);
          progress(
            `round ${round} ${workload} ${target.name}: ${Math.round((run.frames / run.wallMs) * 1000)} frames/s, ${us} us CPU/frame${run.quietBefore ? "" : " (not quiet before)"}`,
          );
        }
      }
      await Promise.allSettled(running.map((t) => t.stop()));
      running = [];
    }
    return {
      startedAt: startedAt.toISOString(),
      machine,
      pinning,
      targets,
      frameRuns,
      holdRuns,
      wallSeconds: (Date.now() - startedAt.getTime()) / 1000,
      ...(checkout && { before: { rev: checkout.rev, commit: checkout.commit } }),
    };
  } finally {
    await Promise.allSettled(running.map((t) => t.stop()));
    await checkout?.remove().catch((error: unknown) => progress(`could not remove the --before worktree ${checkout!.dir}: ${(error as Error).message}`));
    await rm(workdir, { recursive: true, force: true });
    if (storage?.owned) await rm(storage.dir, { recursive: true, force: true });
  }
}
