// Waits until a set of workerd processes has stopped working: used after a run, so the CPU a run
// caused but deferred (the gateway's counters write a snapshot once idle for 2 s) is counted with
// it, and before a run, so no target's leftover work (its own or another's: every workerd shares
// the server core) lands in another's measurement.
import { setTimeout as sleep } from "node:timers/promises";
import { cpuMs } from "./processes.ts";

export interface QuietOptions {
  /** Quiet means this long... */
  readonly windowMs: number;
  /** ...using at most this share of one core (clock ticks are 10 ms, so not much below 2%). */
  readonly maxShare: number;
  /** Give up after this long; the run goes ahead and the record says it was not quiet. */
  readonly giveUpMs: number;
}

/** After a run: longer than the gateway's 2 s settle delay, so its deferred snapshots are seen. */
export const AFTER_RUN: QuietOptions = { windowMs: 3000, maxShare: 0.02, giveUpMs: 20_000 };
/** Before a run: nothing is running now. */
export const BEFORE_RUN: QuietOptions = { windowMs: 500, maxShare: 0.04, giveUpMs: 10_000 };

const SAMPLE_MS = 250;

export interface QuietResult {
  readonly quiet: boolean;
  readonly waitedMs: number;
}

/**
 * Pure: whether the samples (cumulative CPU ms, one per SAMPLE_MS, oldest first) end in a quiet
 * window.
 */
export function endsQuiet(samples: readonly number[], options: QuietOptions): boolean {
  const span = Math.ceil(options.windowMs / SAMPLE_MS);
  if (samples.length <= span) return false;
  const used = samples[samples.length - 1]! - samples[samples.length - 1 - span]!;
  return used <= span * SAMPLE_MS * options.maxShare;
}

export async function waitForQuiet(pids: readonly number[], options: QuietOptions): Promise<QuietResult> {
  const started = Date.now();
  const samples: number[] = [];
  for (;;) {
    const now = cpuMs(pids);
    if (now === undefined) return { quiet: false, waitedMs: Date.now() - started };
    samples.push(now);
    if (endsQuiet(samples, options)) return { quiet: true, waitedMs: Date.now() - started };
    if (Date.now() - started >= options.giveUpMs) return { quiet: false, waitedMs: Date.now() - started };
    await sleep(SAMPLE_MS);
  }
}
