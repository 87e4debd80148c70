import { describe, expect, it } from "vitest";
import { issueTargets, summarize } from "../../../bench/gateway/summary.ts";
import { exactBurst, overBurst, run } from "./fixtures.ts";

describe("summarize", () => {
  it("pairs each round with the bare Worker's run of the same round", () => {
    const rows = summarize(
      [run(1, "warm-keys", "bare", 1000, 1), run(1, "warm-keys", "gateway", 500, 2), run(2, "warm-keys", "bare", 2000, 1), run(2, "warm-keys", "gateway", 1800, 1.5)],
      ["warm-keys"],
      ["bare", "gateway"],
    );
    const gateway = rows.find((r) => r.target === "gateway")!;
    // Rounds 0.5 and 0.9: the ratio of the medians (1150/1500) would hide that the machine changed.
    expect(gateway.vsBare).toEqual({ median: 0.7, min: 0.5, max: 0.9, n: 2 });
    expect(gateway.reqPerSec).toEqual({ median: 1150, min: 500, max: 1800, n: 2 });
    expect(gateway.cpuVsBare).toEqual({ median: 1.75, min: 1.5, max: 2, n: 2 });
    expect(rows.find((r) => r.target === "bare")!.vsBare).toBeUndefined();
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
