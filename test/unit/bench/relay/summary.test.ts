import { describe, expect, it } from "vitest";
import type { FrameRun, HoldRun } from "../../../../bench/relay/run.ts";
import { summarizeFrames, summarizeHolding } from "../../../../bench/relay/summary.ts";
import { renderFrameTable, renderHoldTable } from "../../../../bench/relay/report.ts";

const frameRun = (
  round: number,
  target: FrameRun["target"],
  cpuUs: number | undefined,
  wallMs: number,
  workload: FrameRun["workload"] = "command-small",
): FrameRun => ({
  round,
  workload,
  target,
  frames: 1000,
  cpuNs: cpuUs === undefined ? undefined : cpuUs * 1000 * 1000,
  wallMs,
  quietBefore: true,
});

const holdRun = (round: number, target: HoldRun["target"], sockets: number, kbEach: number | undefined): HoldRun => ({
  round,
  target,
  sockets,
  rssBeforeBytes: 100 * 1024 * 1024,
  rssBytes: kbEach === undefined ? undefined : 100 * 1024 * 1024 + kbEach * 1024 * sockets,
});

describe("summarizeFrames", () => {
  it("gives CPU per frame and frames per second, each round beside the pass-through's of the same round", () => {
    const runs = [
      frameRun(1, "pass-through", 10, 100),
      frameRun(1, "gateway", 30, 400),
      // Round 2 ran on a slower machine: each ratio is taken within its round.
      frameRun(2, "pass-through", 20, 200),
      frameRun(2, "gateway", 40, 400),
    ];
    const [base, gateway] = summarizeFrames(runs, ["pass-through", "gateway"]);
    expect(base).toMatchObject({ target: "pass-through", cpuUsPerFrame: { median: 15, min: 10, max: 20, n: 2 }, cpuRatio: { median: 1 } });
    expect(gateway).toMatchObject({
      workload: "command-small",
      target: "gateway",
      cpuUsPerFrame: { median: 35, min: 30, max: 40 },
      cpuRatio: { median: 2.5, min: 2, max: 3, n: 2 },
      framesPerSecond: { median: 2500, min: 2500, max: 2500 },
      rateRatio: { median: 0.375, min: 0.25, max: 0.5 },
    });
  });

  it("leaves out a round either side lacks a figure for, and workloads nobody ran", () => {
    const runs = [
      frameRun(1, "pass-through", undefined, 100),
      frameRun(1, "pair", 30, 100),
      frameRun(2, "pass-through", 10, 100),
      frameRun(2, "pair", 20, 100),
    ];
    const rows = summarizeFrames(runs, ["pass-through", "pair"]);
    expect(rows).toHaveLength(2);
    expect(rows[1]!.cpuRatio).toEqual({ median: 2, min: 2, max: 2, n: 1 });
    expect(rows[1]!.cpuUsPerFrame).toMatchObject({ median: 25, n: 2 });
  });

  it("prints the baseline's own ratios as 1", () => {
    const table = renderFrameTable(summarizeFrames([frameRun(1, "pass-through", 10, 100), frameRun(1, "gateway", 25, 100)], ["pass-through", "gateway"]));
    expect(table).toMatch(/command-small\s*│\s*pass-through\s*│\s*10\.0\s*│\s*1\s*│/);
    expect(table).toMatch(/gateway\s*│\s*25\.0\s*│\s*2\.50\s*│/);
  });
});

describe("summarizeHolding", () => {
  it("gives memory per socket over the empty workerd, and what a relay adds over the pass-through in the same round", () => {
    const runs = [
      holdRun(1, "pass-through", 200, 150),
      holdRun(1, "pass-through", 1000, 140),
      holdRun(1, "pair", 200, 190),
      holdRun(1, "pair", 1000, 180),
      holdRun(2, "pass-through", 200, 160),
      holdRun(2, "pair", 200, 220),
    ];
    const rows = summarizeHolding(runs, ["pass-through", "pair"]);
    expect(rows.map((r) => [r.target, r.sockets])).toEqual([
      ["pass-through", 200],
      ["pass-through", 1000],
      ["pair", 200],
      ["pair", 1000],
    ]);
    expect(rows[2]).toMatchObject({ kbPerSocket: { median: 205, min: 190, max: 220 }, kbOverBaseline: { median: 50, min: 40, max: 60 } });
    expect(rows[3]!.ratio!.median).toBeCloseTo(180 / 140);
    expect(renderHoldTable(rows)).toMatch(/pair\s*│\s*200\s*│\s*205\.0 \(190\.0-220\.0\)\s*│\s*-\s*│\s*50\.0 \(40\.0-60\.0\)/);
  });

  it("has no figure for a round whose memory could not be read", () => {
    const rows = summarizeHolding([holdRun(1, "pass-through", 10, undefined), holdRun(1, "pair", 10, 200)], ["pass-through", "pair"]);
    expect(rows[0]!.kbPerSocket).toBeUndefined();
    expect(rows[1]!.kbOverBaseline).toBeUndefined();
  });
});

describe("kbPerAddedSocket", () => {
  it("is what each socket between two levels of the same round added", () => {
    const runs = [
      holdRun(1, "pass-through", 200, 150),
      holdRun(1, "pass-through", 1000, 140),
      holdRun(2, "pass-through", 200, 160),
      holdRun(2, "pass-through", 1000, 140),
    ];
    const [first, second] = summarizeHolding(runs, ["pass-through"]);
    expect(first!.kbPerAddedSocket).toBeUndefined();
    // Round 1: (140 * 1000 - 150 * 200) / 800; round 2: (140 * 1000 - 160 * 200) / 800.
    expect(second!.kbPerAddedSocket).toMatchObject({ min: 135, max: 137.5 });
  });
});
