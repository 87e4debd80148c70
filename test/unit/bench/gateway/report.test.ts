import { describe, expect, it } from "vitest";
import { parseBenchArgs } from "../../../../bench/gateway/args.ts";
import type { BenchResult } from "../../../../bench/gateway/bench.ts";
import { formats, formatSpread, jsonReport, overAdmissionBanner, renderDecisionMix, renderReport, renderTable } from "../../../../bench/gateway/report.ts";
import { summarize, summarizeDecisions } from "../../../../bench/gateway/summary.ts";
import { decided, exactBurst, overBurst, run } from "./fixtures.ts";

const result = (runs: BenchResult["runs"]): BenchResult => ({
  startedAt: "2026-11-23T07:00:00.000Z",
  machine: { cpus: 2, cpuModel: "Test CPU", loadAverageAtStart: [0.5, 0.4, 0.3], node: "v24.21.0" },
  storageDir: "/dev/shm/tollgate-bench-abc",
  pinning: "client (this process) on CPU 0, every workerd on CPU 1",
  runs,
  wallSeconds: 321.4,
});

describe("formatSpread", () => {
  it("shows the median, and the range only when the rounds differ", () => {
    expect(formatSpread({ median: 1293, min: 1180, max: 1320, n: 3 }, formats.rate)).toBe("1,293 (1,180-1,320)");
    expect(formatSpread({ median: 0.5, min: 0.5, max: 0.5, n: 3 }, formats.ratio)).toBe("0.50");
    expect(formatSpread({ median: 2, min: 1, max: 3, n: 1 }, formats.ratio)).toBe("2.00");
    expect(formatSpread(undefined, formats.ratio)).toBe("-");
  });

  it("prints small latencies with a decimal and large ones whole", () => {
    expect(formats.ms(3.25)).toBe("3.3");
    expect(formats.ms(1234.4)).toBe("1,234");
  });
});

describe("renderTable", () => {
  it("has a row per shape and target, the shape named once, with every column", () => {
    const rows = summarize([run(1, "warm-keys", "bare", 1296, 0.9), run(1, "warm-keys", "gateway", 651, 1.7)], ["warm-keys"], ["bare", "gateway"]);
    const text = renderTable(rows);
    for (const head of ["shape", "target", "req/s", "x bare", "p50 ms", "p99 ms", "CPU ms/req", "CPU x bare", "answers"]) expect(text).toContain(head);
    expect(text).toMatch(/2 same keys, warm \(row 16\)\s+│ bare\s+│\s+1,296 │/);
    expect(text).toMatch(/│\s+│ gateway │\s+651 │\s+0\.50 │ +20 │ +80 │ +1\.70 │ +1\.89 │ 200 x1000/);
    // No run counted instructions: no column for them.
    expect(text).not.toContain("instr x bare");
  });

  it("prints instructions per request over bare's, paired by round, when they were counted", () => {
    const ok = { ok: true, summary: "200 x1000" };
    const rows = summarize(
      [run(1, "warm-keys", "bare", 1296, 0.9, ok, 1_600_000), run(1, "warm-keys", "gateway", 651, 1.7, ok, 1_680_000)],
      ["warm-keys"],
      ["bare", "gateway"],
    );
    const text = renderTable(rows);
    expect(text).toContain("instr x bare");
    expect(text).toMatch(/│ gateway │\s+651 │\s+0\.50 │ +20 │ +80 │ +1\.70 │ +1\.89 │ +1\.05 │ 200 x1000/);
    expect(text).toMatch(/│ bare\s+│\s+1,296 │\s+- │ +20 │ +80 │ +0\.90 │ +- │ +- │ 200 x1000/);
  });
});

describe("overAdmissionBanner", () => {
  it("says nothing when every burst held, and names each target that over-admitted", () => {
    expect(overAdmissionBanner(summarize([run(1, "hot-key", "gateway", 100, 1, exactBurst)], ["hot-key"], ["gateway"]))).toBeUndefined();
    const banner = overAdmissionBanner(summarize([run(1, "hot-key", "peer", 100, 1, overBurst)], ["hot-key"], ["peer"]));
    expect(banner).toContain("OVER-ADMISSION");
    expect(banner).toContain("peer: 16/15 OVER-ADMITTED");
  });
});

describe("renderDecisionMix", () => {
  it("lists the ways the gateway decided each shape, most used first, with the range of the rounds", () => {
    const rows = summarizeDecisions(
      [
        { ...run(1, "new-keys", "gateway", 300, 3), decidedBy: decided(0, 0, 1000) },
        { ...run(2, "new-keys", "gateway", 300, 3), decidedBy: decided(0, 0, 1000) },
        { ...run(1, "warm-keys", "gateway", 650, 1.7), decidedBy: decided(970, 0, 30) },
        { ...run(2, "warm-keys", "gateway", 650, 1.7), decidedBy: decided(950, 0, 50) },
        { ...run(1, "deny-flood", "gateway", 1000, 1), decidedBy: decided(0, 2998, 2) },
        { ...run(2, "deny-flood", "gateway", 1000, 1), decidedBy: decided(0, 2999, 1) },
      ],
      ["new-keys", "warm-keys", "deny-flood"],
    );
    expect(renderDecisionMix(rows)).toEqual([
      "  1 new API keys: object 100%, lease 0%, deny cache 0%",
      "  2 same keys, warm: lease 96% (95% to 97%), object 4% (3% to 5%), deny cache 0%",
      // A sliver is never printed as 0%, nor nearly all as 100%; more decisions than requests: said.
      "  4 deny flood: deny cache >99%, object <1%, lease 0%; 3,000 decisions for 1,000 requests",
    ]);
  });

  it("says when the gateway's metrics could not be read, and counts counter failures", () => {
    const rows = summarizeDecisions(
      [
        run(1, "one-key", "gateway", 400, 2),
        { ...run(1, "new-keys", "gateway", 300, 3), decidedBy: decided(0, 0, 1000, 4) },
        run(2, "new-keys", "gateway", 300, 3),
      ],
      ["new-keys", "one-key"],
    );
    expect(renderDecisionMix(rows)).toEqual([
      "  1 new API keys: object 100%, lease 0%, deny cache 0%; counter failures 4; metrics unread in 1 of 2 rounds",
      "  3 one key: not measured: the gateway's metrics could not be read (1 of 1 rounds)",
    ]);
  });
});

describe("renderReport with --before", () => {
  it("names the revision and its commit, says how it decided and prints the gateway against it per shape", () => {
    const options = parseBenchArgs(["--rounds", "1", "--shapes", "1,2", "--targets", "gateway", "--before", "dfbde3a"]);
    const runs = [
      run(1, "warm-keys", "bare", 1000, 1),
      { ...run(1, "warm-keys", "gateway", 820, 1.2), decidedBy: decided(1000, 0, 0) },
      { ...run(1, "warm-keys", "before", 700, 1.5), decidedBy: decided(900, 0, 100) },
    ];
    const text = renderReport({ ...result(runs), before: { rev: "dfbde3a", commit: "dfbde3a0123456789" } }, options);
    expect(text).toContain("before: tollgate at dfbde3a (commit dfbde3a0123456789)");
    expect(text).toContain("tollgate at the --before revision");
    expect(text).toContain("how tollgate at dfbde3a decided (the same shares):\n  2 same keys, warm: lease 90%, object 10%, deny cache 0%");
    expect(text).toContain("  2 same keys, warm: x bare 0.70 before, 0.82 now; now over before 1.17 req/s, 0.80 CPU per request");
    const json = jsonReport({ ...result(runs), before: { rev: "dfbde3a", commit: "dfbde3a0123456789" } }, options) as { beforeAndAfter: unknown[] };
    expect(json.beforeAndAfter).toHaveLength(1);
  });

  it("says nothing of a before run when there was none", () => {
    const options = parseBenchArgs(["--rounds", "1", "--shapes", "1,2", "--targets", "gateway"]);
    const text = renderReport(result([run(1, "warm-keys", "bare", 1000, 1), run(1, "warm-keys", "gateway", 820, 1.2)]), options);
    expect(text).not.toContain("now over before");
    expect(jsonReport(result([]), options)).not.toHaveProperty("beforeAndAfter");
  });
});

describe("renderReport", () => {
  const options = parseBenchArgs(["--rounds", "1", "--shapes", "1,6"]);
  const runs = [
    run(1, "new-keys", "bare", 1000, 1),
    run(1, "new-keys", "gateway", 300, 3),
    run(1, "new-keys", "peer", 250, 4),
    run(1, "hot-key", "gateway", 50, 2, overBurst),
  ];

  it("puts the over-admission banner first, then the machine, the table, the legend and the issue's targets", () => {
    const text = renderReport(result(runs), options);
    expect(text.startsWith("!!!")).toBe(true);
    expect(text.indexOf("OVER-ADMISSION")).toBeLessThan(text.indexOf("gateway bench, 2026-11-23: 2 CPU (Test CPU)"));
    expect(text).toContain("client (this process) on CPU 0");
    expect(text).toContain("Durable Object storage (--storage ram): SQLite files in RAM (commits without waiting for a disk), /dev/shm/tollgate-bench-abc");
    expect(text).toContain("hono-rate-limiter");
    expect(text).toContain("missed       new keys >= 0.5 of bare: 0.30");
    expect(text).toContain("missed       hot-key burst exact: 16/15 OVER-ADMITTED");
    expect(text).toContain("gateway, shape 6, round 1: admitted 16");
    expect(text).toContain("wall time 321.4 s");
    // Instructions were not asked for: not a word about them.
    expect(text).not.toContain("instr");
  });

  it("ends with the run's verdict: FAIL when the gateway or bare answered otherwise than the shape demands, not for the peer", () => {
    expect(renderReport(result(runs), options).split("\n").at(-1)).toBe("FAIL");
    expect(
      renderReport(result(runs.slice(0, 3)), options)
        .split("\n")
        .at(-1),
    ).toBe("PASS");
    const peerOff = run(1, "hot-key", "peer", 50, 2, overBurst);
    expect(
      renderReport(result([...runs.slice(0, 3), peerOff]), options)
        .split("\n")
        .at(-1),
    ).toBe("PASS");
    expect((jsonReport(result(runs), options) as { verdict: string }).verdict).toBe("FAIL");
  });

  it("explains the instructions column when asked for, or says why it is missing", () => {
    const asked = parseBenchArgs(["--rounds", "1", "--shapes", "1", "--instructions"]);
    const counted = renderReport(result([run(1, "new-keys", "bare", 1000, 1, undefined, 1e6)]), asked);
    expect(counted).toContain("instr    user-mode instructions the target's workerd processes executed");
    expect(counted).toContain("instr x bare");
    const uncounted = renderReport(result([run(1, "new-keys", "bare", 1000, 1)]), asked);
    expect(uncounted).toContain("instr    not counted: perf is missing here, or has no access to the CPU's instruction counter");
    expect(uncounted).not.toContain("instr x bare");
  });

  it("shows how the gateway decided below the table, only when the gateway ran", () => {
    const mixed = [runs[0]!, { ...runs[1]!, decidedBy: decided(0, 0, 1000) }];
    const text = renderReport(result(mixed), options);
    expect(text).toContain("how the gateway decided (median of the rounds)");
    expect(text).toContain("\n  1 new API keys: object 100%, lease 0%, deny cache 0%\n");
    expect(text.indexOf("how the gateway decided")).toBeGreaterThan(text.indexOf("answers  the statuses"));
    expect(text.indexOf("how the gateway decided")).toBeLessThan(text.indexOf("issue 10 targets"));
    expect(renderReport(result([run(1, "new-keys", "bare", 1000, 1)]), options)).not.toContain("how the gateway decided");
  });

  it("gives the same figures as JSON", () => {
    const json = jsonReport(result(runs), options) as { summary: { target: string; vsBare?: { median: number } }[]; issueTargets: unknown[]; runs: unknown[] };
    expect(json.runs).toHaveLength(4);
    expect(json.summary.find((r) => r.target === "gateway")!.vsBare!.median).toBe(0.3);
    expect(json.issueTargets).toHaveLength(4);
  });

  it("gives the decision mix as JSON, with each run's totals", () => {
    const mixed = [run(1, "new-keys", "bare", 1000, 1), { ...run(1, "new-keys", "gateway", 300, 3), decidedBy: decided(0, 0, 1000) }];
    const json = JSON.parse(JSON.stringify(jsonReport(result(mixed), options))) as {
      decidedBy: { shape: string; read: number; object: { median: number } }[];
      runs: { decidedBy?: unknown }[];
    };
    expect(json.decidedBy).toEqual([expect.objectContaining({ shape: "new-keys", read: 1, object: { median: 1, min: 1, max: 1, n: 1 } })]);
    expect(json.runs[1]!.decidedBy).toEqual({ decisions: 1000, lease: 0, denyCache: 0, object: 1000, failures: 0 });
  });
});
