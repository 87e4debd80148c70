// Pure: the rounds of each (workload, target) and (target, sockets held) summarized as a median and
// a range, each beside the baseline's run of the same round (gateway/stats.ts), so a noisy machine
// shows as a wide range instead of hiding in an average.
import { pairedRatios, spread, type Spread } from "../gateway/stats.ts";
import type { FrameRun, HoldRun } from "./run.ts";
import { BASELINE, type RelayTargetName } from "./target-names.ts";
import { WORKLOAD_NAMES, type WorkloadName } from "./workloads.ts";

export interface FrameRow {
  readonly workload: WorkloadName;
  readonly target: RelayTargetName;
  /** Microseconds of workerd CPU per frame. */
  readonly cpuUsPerFrame: Spread | undefined;
  /** The same over the baseline's of the same round. */
  readonly cpuRatio: Spread | undefined;
  readonly framesPerSecond: Spread | undefined;
  readonly rateRatio: Spread | undefined;
}

export interface HoldRow {
  readonly target: RelayTargetName;
  readonly sockets: number;
  /** KB of resident memory per socket held, over what workerd used before the first. */
  readonly kbPerSocket: Spread | undefined;
  /**
   * KB per socket between the level before and this one (undefined at the first level): what one
   * more socket costs, without what the first ones cost once (threads, pools, the first objects).
   */
  readonly kbPerAddedSocket: Spread | undefined;
  /** The same less the baseline's of the same round: what this relay adds per socket. */
  readonly kbOverBaseline: Spread | undefined;
  readonly ratio: Spread | undefined;
}

/** One value per round (index 0 is round 1), undefined where the round has no run or no figure. */
function byRound<R extends { readonly round: number }>(runs: readonly R[], rounds: number, value: (run: R) => number | undefined): (number | undefined)[] {
  return Array.from({ length: rounds }, (_, i) => {
    const run = runs.find((r) => r.round === i + 1);
    return run === undefined ? undefined : value(run);
  });
}

const roundsOf = (runs: readonly { readonly round: number }[]) => Math.max(0, ...runs.map((r) => r.round));

export const cpuUsPerFrame = (run: FrameRun): number | undefined => (run.cpuNs === undefined || run.frames === 0 ? undefined : run.cpuNs / 1000 / run.frames);
export const framesPerSecond = (run: FrameRun): number | undefined => (run.wallMs > 0 ? (run.frames / run.wallMs) * 1000 : undefined);
/** KB per socket added from `previous` (the same round's level below) to `run`. */
export const kbPerAddedSocket = (run: HoldRun, previous: HoldRun | undefined): number | undefined =>
  previous === undefined || run.rssBytes === undefined || previous.rssBytes === undefined
    ? undefined
    : (run.rssBytes - previous.rssBytes) / (run.sockets - previous.sockets) / 1024;

export const kbPerSocket = (run: HoldRun): number | undefined =>
  run.rssBytes === undefined || run.rssBeforeBytes === undefined ? undefined : (run.rssBytes - run.rssBeforeBytes) / run.sockets / 1024;

/** Every workload run, in the order of WORKLOAD_NAMES, then of `targets`. */
export function summarizeFrames(runs: readonly FrameRun[], targets: readonly RelayTargetName[]): FrameRow[] {
  const rounds = roundsOf(runs);
  const rows: FrameRow[] = [];
  for (const workload of WORKLOAD_NAMES) {
    const base = runs.filter((r) => r.workload === workload && r.target === BASELINE);
    for (const target of targets) {
      const mine = runs.filter((r) => r.workload === workload && r.target === target);
      if (mine.length === 0) continue;
      const cpu = byRound(mine, rounds, cpuUsPerFrame);
      const rate = byRound(mine, rounds, framesPerSecond);
      rows.push({
        workload,
        target,
        cpuUsPerFrame: spread(cpu),
        cpuRatio: spread(pairedRatios(cpu, byRound(base, rounds, cpuUsPerFrame))),
        framesPerSecond: spread(rate),
        rateRatio: spread(pairedRatios(rate, byRound(base, rounds, framesPerSecond))),
      });
    }
  }
  return rows;
}

/** Every held level, in the order of `targets`, then of the levels. */
export function summarizeHolding(runs: readonly HoldRun[], targets: readonly RelayTargetName[]): HoldRow[] {
  const rounds = roundsOf(runs);
  const levels = [...new Set(runs.map((r) => r.sockets))].sort((a, b) => a - b);
  const rows: HoldRow[] = [];
  for (const target of targets) {
    for (const [level, sockets] of levels.entries()) {
      const mine = runs.filter((r) => r.target === target && r.sockets === sockets);
      const below = levels[level - 1];
      const added = byRound(mine, rounds, (run) =>
        kbPerAddedSocket(
          run,
          runs.find((r) => r.target === target && r.round === run.round && r.sockets === below),
        ),
      );
      if (mine.length === 0) continue;
      const kb = byRound(mine, rounds, kbPerSocket);
      const base = byRound(
        runs.filter((r) => r.target === BASELINE && r.sockets === sockets),
        rounds,
        kbPerSocket,
      );
      const over = kb.map((v, i) => (v === undefined || base[i] === undefined ? undefined : v - base[i]!));
      rows.push({
        target,
        sockets,
        kbPerSocket: spread(kb),
        kbPerAddedSocket: spread(added),
        kbOverBaseline: spread(over),
        ratio: spread(pairedRatios(kb, base)),
      });
    }
  }
  return rows;
}
