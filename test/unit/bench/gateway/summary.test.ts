import { describe, expect, it } from "vitest";
import { beforeAndAfter, issueTargets, summarize, summarizeDecisions } from "../../../../bench/gateway/summary.ts";
import { decided, exactBurst, overBurst, run } from "./fixtures.ts";

describe("summarize", () => {
  it("pairs each round with the bare Worker's run of the same round", () => {
    const rows = summarize(
      [
        run(1, "warm-keys", "bare", 1000, 1),
        run(1, "warm-keys", "gateway", 500, 2),
        run(2, "warm-keys", "bare", 2000, 1),
        run(2, "warm-keys", "gateway", 1800, 1.5),
      ],
      ["warm-keys"],
      ["bare", "gateway"],
    );
    const gateway = rows.find((r) => r.target === "gateway")!;
    // Rounds 0.5 and 0.9: the ratio of the medians (1150/1500) would hide that the machine changed.
    expect(gateway.vsBare).toEqual({ median: 0.7, min: 0.5, max: 0.9, n: 2 });
    expect(gateway.reqPerSec).toEqual({ median: 1150, min: 500, max: 1800, n: 2 });
    expect(gateway.cpuVsBare).toEqual({ median: 1.75, min: 1.5, max: 2, n: 2 });
    expect(rows.find((r) => r.target === "bare")!.vsBare).toBeUndefined();
    // Counted by no run: no instruction figures at all.
    expect(gateway.instructionsPerRequest).toBeUndefined();
    expect(gateway.instructionsVsBare).toBeUndefined();
  });

  it("pairs instructions per request by round too, skipping rounds either side did not count", () => {
    const ok = { ok: true, summary: "200 x1000" };
    const rows = summarize(
      [
        run(1, "warm-keys", "bare", 1000, 1, ok, 1_000_000),
        run(1, "warm-keys", "gateway", 800, 1, ok, 1_100_000),
        run(2, "warm-keys", "bare", 1000, 1, ok, 2_000_000),
        run(2, "warm-keys", "gateway", 800, 1, ok, 2_100_000),
        run(3, "warm-keys", "bare", 1000, 1, ok, undefined),
        run(3, "warm-keys", "gateway", 800, 1, ok, 9_000_000),
      ],
      ["warm-keys"],
      ["bare", "gateway"],
    );
    const gateway = rows.find((r) => r.target === "gateway")!;
    const ratios = gateway.instructionsVsBare!;
    expect([ratios.median, ratios.min, ratios.max, ratios.n]).toEqual([expect.closeTo(1.075), expect.closeTo(1.05), expect.closeTo(1.1), 2]);
    expect(gateway.instructionsPerRequest).toEqual({ median: 2_100_000, min: 1_100_000, max: 9_000_000, n: 3 });
    expect(rows.find((r) => r.target === "bare")!.instructionsVsBare).toBeUndefined();
  });

  it("keeps the worst burst verdict of the rounds and lists each round's problem", () => {
    const [row] = summarize([run(1, "hot-key", "gateway", 100, 1, exactBurst), run(2, "hot-key", "gateway", 100, 1, overBurst)], ["hot-key"], ["gateway"]);
    expect(row!.burst).toBe("over-admitted");
    expect(row!.answers).toBe("16/15 OVER-ADMITTED in 1 of 2 rounds");
    expect(row!.problems).toEqual([`round 2: ${overBurst.problem}`]);
  });

  it("shows distinct summaries when every round was right but they differ", () => {
    const under = { ok: true, summary: "14/15 under-admitted", burst: "under-admitted" as const };
    const [row] = summarize([run(1, "hot-key", "gateway", 100, 1, exactBurst), run(2, "hot-key", "gateway", 100, 1, under)], ["hot-key"], ["gateway"]);
    expect(row!.answers).toBe("15/15 exact | 14/15 under-admitted");
    expect(row!.burst).toBe("under-admitted");
  });
});

describe("issueTargets", () => {
  it("judges the gateway's median ratios and the burst against issue 10's figures", () => {
    const rows = summarize(
      [
        run(1, "new-keys", "bare", 1000, 1),
        run(1, "new-keys", "gateway", 600, 1),
        run(1, "warm-keys", "bare", 1000, 1),
        run(1, "warm-keys", "gateway", 700, 1),
        run(1, "hot-key", "gateway", 100, 1, exactBurst),
      ],
      ["new-keys", "warm-keys", "deny-flood", "hot-key"],
      ["bare", "gateway"],
    );
    expect(issueTargets(rows)).toEqual([
      { what: "warm keys >= 0.8 of bare", outcome: "missed", detail: "0.70 (rounds 0.70-0.70)" },
      { what: "new keys >= 0.5 of bare", outcome: "met", detail: "0.60 (rounds 0.60-0.60)" },
      { what: "deny flood >= 1.0 of bare", outcome: "not measured", detail: "" },
      { what: "hot-key burst exact", outcome: "met", detail: "15/15 exact" },
    ]);
  });
});

describe("summarizeDecisions", () => {
  it("gives the gateway's share of each way per shape, median and range of the rounds", () => {
    const rows = summarizeDecisions(
      [
        { ...run(1, "warm-keys", "gateway", 650, 1.7), decidedBy: decided(970, 0, 30) },
        { ...run(2, "warm-keys", "gateway", 650, 1.7), decidedBy: decided(900, 0, 100, 2) },
        { ...run(3, "warm-keys", "gateway", 650, 1.7), decidedBy: decided(990, 0, 10) },
        run(1, "warm-keys", "bare", 1000, 1),
        { ...run(1, "new-keys", "gateway", 300, 3), decidedBy: decided(0, 0, 1000) },
      ],
      ["new-keys", "warm-keys"],
    );
    expect(rows.map((r) => r.shape)).toEqual(["new-keys", "warm-keys"]);
    const [fresh, warm] = rows;
    expect(fresh).toMatchObject({ rounds: 1, read: 1, sent: 1000, object: { median: 1, min: 1, max: 1, n: 1 }, lease: { median: 0, n: 1 } });
    expect(warm).toMatchObject({ rounds: 3, read: 3, sent: 1000 });
    expect(warm!.lease).toEqual({ median: 0.97, min: 0.9, max: 0.99, n: 3 });
    expect(warm!.object).toEqual({ median: 0.03, min: 0.01, max: 0.1, n: 3 });
    expect(warm!.denyCache).toEqual({ median: 0, min: 0, max: 0, n: 3 });
    expect(warm!.other).toEqual({ median: 0, min: 0, max: 0, n: 3 });
    expect(warm!.failures).toEqual({ median: 0, min: 0, max: 2, n: 3 });
  });

  it("leaves out the rounds whose metrics could not be read, and has nothing to say without the gateway", () => {
    const [row] = summarizeDecisions(
      [run(1, "deny-flood", "gateway", 1000, 1), { ...run(2, "deny-flood", "gateway", 1000, 1), decidedBy: decided(0, 999, 1) }],
      ["deny-flood"],
    );
    expect(row).toMatchObject({ rounds: 2, read: 1, denyCache: { median: 0.999, n: 1 }, object: { median: 0.001, n: 1 } });
    expect(summarizeDecisions([run(1, "deny-flood", "bare", 1000, 1)], ["deny-flood"])).toEqual([]);
  });
});

describe("beforeAndAfter", () => {
  it("pairs the gateway with the gateway at the --before revision round by round, beside each one's ratio to bare", () => {
    const runs = [
      run(1, "warm-keys", "bare", 1000, 1),
      run(1, "warm-keys", "gateway", 900, 1.2),
      run(1, "warm-keys", "before", 750, 1.5),
      run(2, "warm-keys", "bare", 2000, 1),
      run(2, "warm-keys", "gateway", 1600, 1.25),
      run(2, "warm-keys", "before", 1600, 1.25),
      run(1, "new-keys", "gateway", 300, 3),
    ];
    const rows = summarize(runs, ["new-keys", "warm-keys"], ["bare", "gateway", "before"]);
    // new-keys has no before run: nothing to compare.
    const [warm, ...rest] = beforeAndAfter(runs, rows, ["new-keys", "warm-keys"]);
    expect(rest).toEqual([]);
    expect(warm!.shape).toBe("warm-keys");
    expect(warm!.after).toEqual({ median: expect.closeTo(0.85), min: expect.closeTo(0.8), max: expect.closeTo(0.9), n: 2 });
    expect(warm!.before).toEqual({ median: expect.closeTo(0.775), min: expect.closeTo(0.75), max: expect.closeTo(0.8), n: 2 });
    // Round 1: 900/750 = 1.2; round 2: 1600/1600 = 1.
    expect(warm!.afterOverBefore).toEqual({ median: expect.closeTo(1.1), min: expect.closeTo(1), max: expect.closeTo(1.2), n: 2 });
    expect(warm!.cpuAfterOverBefore).toEqual({ median: expect.closeTo(0.9), min: expect.closeTo(0.8), max: expect.closeTo(1), n: 2 });
  });

  it("reads how the before target decided, apart from the gateway", () => {
    const runs = [
      { ...run(1, "warm-keys", "gateway", 650, 1.7), decidedBy: decided(1000, 0, 0) },
      { ...run(1, "warm-keys", "before", 650, 1.7), decidedBy: decided(500, 0, 500) },
    ];
    expect(summarizeDecisions(runs, ["warm-keys"])[0]!.lease).toEqual({ median: 1, min: 1, max: 1, n: 1 });
    expect(summarizeDecisions(runs, ["warm-keys"], "before")[0]!.lease).toEqual({ median: 0.5, min: 0.5, max: 0.5, n: 1 });
  });
});
