// Pure: the printed report (the kit's tables: no colour, so it reads the same in a log or in docs/)
// and the JSON one.
import { textTable, wrap, type Align } from "../../tools/kit/report.ts";
import { formats, formatSpread } from "../gateway/report.ts";
import type { RelayOptions } from "./args.ts";
import type { RelayResult } from "./run.ts";
import { summarizeFrames, summarizeHolding, type FrameRow, type HoldRow } from "./summary.ts";
import { BASELINE, RELAY_TARGET_TITLES } from "./target-names.ts";
import { WORKLOADS } from "./workloads.ts";

const WIDTH = 100;
const oneDecimal = (v: number) => v.toFixed(1);

export function renderFrameTable(rows: readonly FrameRow[]): string {
  const head = ["workload", "target", "CPU us/frame", `x ${BASELINE}`, "frames/s", `x ${BASELINE}`];
  const aligns = head.map((_, i): Align => (i < 2 ? "left" : "right"));
  return textTable({
    head,
    aligns,
    rows: rows.map((r) => [
      r.workload,
      r.target,
      formatSpread(r.cpuUsPerFrame, oneDecimal),
      r.target === BASELINE ? "1" : formatSpread(r.cpuRatio, formats.ratio),
      formatSpread(r.framesPerSecond, formats.rate),
      r.target === BASELINE ? "1" : formatSpread(r.rateRatio, formats.ratio),
    ]),
  });
}

export function renderHoldTable(rows: readonly HoldRow[]): string {
  const head = ["target", "sockets held", "KB/socket", "KB/added socket", `KB over ${BASELINE}`, `x ${BASELINE}`];
  const aligns = head.map((_, i): Align => (i < 1 ? "left" : "right"));
  return textTable({
    head,
    aligns,
    rows: rows.map((r) => [
      r.target,
      String(r.sockets),
      formatSpread(r.kbPerSocket, oneDecimal),
      formatSpread(r.kbPerAddedSocket, oneDecimal),
      r.target === BASELINE ? "0" : formatSpread(r.kbOverBaseline, oneDecimal),
      r.target === BASELINE ? "1" : formatSpread(r.ratio, formats.ratio),
    ]),
  });
}

export function renderReport(result: RelayResult, options: RelayOptions): string {
  const { machine } = result;
  const lines = [
    `bench:relay, ${result.startedAt}: ${options.rounds} round(s), ${machine.cpus} CPU (${machine.cpuModel}), load ${machine.loadAverageAtStart.map((l) => l.toFixed(2)).join(" ")} at start, ${result.pinning}`,
    ...(result.before ? [`before: ${result.before.rev} (commit ${result.before.commit})`] : []),
    "",
    "Per frame: workerd's CPU (every thread, the upstream's included) per frame, and frames per second; median (min-max) over the rounds, ratios against the pass-through's run of the same round.",
    renderFrameTable(summarizeFrames(result.frameRuns, result.targets)),
    "",
    "Per held socket: workerd's resident memory with the sockets open (each answered one command) over before the first, per socket; per added socket, over the level before.",
    renderHoldTable(summarizeHolding(result.holdRuns, result.targets)),
    "",
    "targets:",
    ...result.targets.flatMap((t) => wrap(`  ${t}: ${RELAY_TARGET_TITLES[t]}`, WIDTH)),
    "workloads:",
    ...Object.values(WORKLOADS).flatMap((w) => wrap(`  ${w.name}: ${w.title} (${w.frameBytes} bytes, ${w.direction})`, WIDTH)),
    `wall time ${Math.round(result.wallSeconds)} s`,
  ];
  return lines.join("\n");
}

export function jsonReport(result: RelayResult, options: RelayOptions): unknown {
  return {
    ...result,
    options: { rounds: options.rounds, frames: options.frames, sockets: options.sockets, before: options.before ?? null, pin: options.pin },
    summary: { frames: summarizeFrames(result.frameRuns, result.targets), held: summarizeHolding(result.holdRuns, result.targets) },
  };
}
