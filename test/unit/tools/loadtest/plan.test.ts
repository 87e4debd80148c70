import { describe, expect, it } from "vitest";
import { hostedApiClassifier, hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import { burstSpacing, fillOffsetMs, loadProfile, planRule, planRun, type Plan, type PlanOptions } from "../../../../tools/loadtest/plan.ts";
import { sampleRequest } from "../../../../src/core/rules/sample-request.ts";
import { classifiers, tableOfRule } from "../../../../src/core/rules/tables.ts";
import { selectRules } from "../../../../tools/loadtest/loadtest.ts";
import { assertMeetsRule, benchmarkIp, clientIdentity } from "../../../../tools/loadtest/traffic.ts";
import { publishedRow } from "../../../support/rows.ts";

/** One scale for every row (--time-scale 60), at the figures these tests were written for. */
const options = (overrides: Partial<PlanOptions> = {}): PlanOptions => ({
  ...DEFAULTS,
  region: "us",
  load: 2,
  windows: 3,
  budget: 400,
  ruleRateCap: 200,
  timeScale: 60,
  varyIp: true,
  runId: "test",
  ...overrides,
});

/** Every moment a row's planned rate changes. */
const changes = (plan: Plan): number[] => plan.rules.flatMap((r) => r.load.map((g) => r.startMs + g.fromMs));

/** The rows' stretches sending at moment t. */
const sendingAt = (plan: Plan, t: number) => plan.rules.flatMap((r) => r.load.filter((g) => r.startMs + g.fromMs <= t && t < r.startMs + g.toMs));

describe("traffic derived from the table", () => {
  it("every row's sample request, with each client's identity, meets that row on the gateway's classifier", () => {
    for (const r of hostedApiTable.rules) {
      for (const varyIp of [true, false]) {
        for (const phase of ["steady", "burst", "retry"] as const) {
          expect(() => assertMeetsRule(hostedApiClassifier, r, sampleRequest(r), clientIdentity(r, phase, "t", varyIp, 7))).not.toThrow();
        }
      }
    }
  });

  it("gives each client its own key, user id and address; against a target, IP rules share the tool's address", () => {
    const steady = clientIdentity(publishedRow(3), "steady", "run", true, 0);
    const burst = clientIdentity(publishedRow(3), "burst", "run", true, 1);
    expect(steady.headers).toEqual({ "x-user-id": "lt-run-r3-steady", "cf-connecting-ip": "198.18.0.0" });
    expect(burst.key).not.toBe(steady.key);
    expect(clientIdentity(publishedRow(12), "steady", "run", true, 2).headers).toMatchObject({ "x-api-key": "lt-run-r12-steady" });
    expect(clientIdentity(publishedRow(29), "steady", "run", false, 0)).toEqual({ key: "ip:tool", headers: {} });
    expect(clientIdentity(publishedRow(29), "burst", "run", false, 1).key).toBe("ip:tool");
    expect(benchmarkIp(65_536 + 258)).toBe("198.19.1.2");
  });
});

describe("rows of every upstream's table", () => {
  it("are sent through their upstream's local mount and checked against that upstream's table", () => {
    const rows = selectRules([12, 101, 203]);
    expect(rows.map((r) => r.id)).toEqual([12, 101, 203]);
    const plan = planRun(rows, options(), (r) => classifiers[tableOfRule(r.id)!]);
    const paths = Object.fromEntries(plan.rules.map((p) => [p.rule.id, `${p.request.method} ${p.request.path}`]));
    expect(paths).toEqual({ 12: "POST /runs/query", 101: "GET /v2/sample/resource", 203: "GET /agent-server/sample/resource" });
    // Checked against the wrong table, the agent server's catch-all is not met.
    expect(() => planRun(selectRules([203]), options(), hostedApiClassifier)).toThrow();
    expect(selectRules("all").map((r) => r.id)).toEqual([...hostedApiTable.rules.map((r) => r.id), 100, 101, 102, 200, 201, 202, 203]);
  });
});

describe("planRule", () => {
  it("scales the window and the rates by the time scale", () => {
    const p = planRule(publishedRow(12), options(), 0, hostedApiClassifier);
    expect(p.windowMs).toBeCloseTo(10_000 / 60);
    expect(p.intendedRate).toBeCloseTo((2 * 15) / (10 / 60));
    expect(p.steadyRate).toBeCloseTo(180);
    expect(p.bursts.size).toBe(30);
    expect(p.bursts.offsetsMs).toHaveLength(5);
    expect(p.bursts.offsetsMs[1]).toBeCloseTo(burstSpacing(p.windowMs));
    expect(p.retry).toMatchObject({ kind: "run", fillSize: 17 });
    expect(p.steady.durationMs).toBe(6000); // three windows are 0.5 s: --min-phase wins
  });

  it("caps what one client offers and says so through steadyRate < intendedRate", () => {
    const p = planRule(publishedRow(11), options(), 0);
    expect(p.intendedRate).toBeCloseTo(72_000);
    expect(p.steadyRate).toBe(200);
    expect(p.bursts.size).toBe(DEFAULTS.burstCap);
    expect(p.retry.kind).toBe("skip");
  });

  it("covers the hour-long rows in three scaled windows", () => {
    const p = planRule(publishedRow(14), options(), 0);
    expect(p.windowMs).toBe(60_000);
    expect(p.durationMs).toBeGreaterThanOrEqual(180_000);
    expect(p.steadyRate).toBeCloseTo(1);
  });

  it("puts the retry client first, then a quiet window, when all clients share one counter", () => {
    const p = planRule(publishedRow(29), options({ varyIp: false, timeScale: 1 }), 0);
    expect(p.sharedIdentity).toBe(true);
    expect(p.steady.offsetMs).toBeGreaterThan(2 * p.windowMs);
    expect(p.bursts.offsetsMs[0]).toBe(p.steady.offsetMs);
  });

  it("leaves the steady client's first window to it: the row's fill and a burst that cannot reach the limit come after", () => {
    // Row 25: 1000 per 10 s; a burst of at most burstCap cannot exceed 1000, the fill is 1002.
    const p = planRule(publishedRow(25), options({ timeScale: 1, ruleRateCap: 400 }), 0);
    expect(p.sharedIdentity).toBe(false);
    expect(p.steady.offsetMs).toBe(0);
    expect(p.retry).toMatchObject({ kind: "run", offsetMs: p.windowMs, fillSize: 1002 });
    expect(p.bursts.offsetsMs).toEqual([p.windowMs]);
    // The slot covers the retry client's whole phase after its start.
    if (p.retry.kind === "run") expect(p.durationMs).toBeGreaterThanOrEqual(p.retry.offsetMs + 2 * p.windowMs);
    // Bursts that can reach the limit still start with the steady client (row 12: 15 per 10 s).
    const small = planRule(publishedRow(12), options({ timeScale: 1 }), 0);
    expect(small.bursts.offsetsMs[0]).toBe(0);
    expect(small.retry).toMatchObject({ kind: "run", offsetMs: small.windowMs });
  });
});

describe("planRun", () => {
  it("fits the whole table at time scale 60 in minutes, never above the budget at any moment", () => {
    for (const region of ["us", "eu"] as const) {
      const plan = planRun(hostedApiTable.rules, options({ region }), hostedApiClassifier);
      expect(plan.rules).toHaveLength(29);
      expect(plan.durationMs).toBeLessThanOrEqual(360_000);
      // A stretch that alone asks more than the budget runs when nothing else sends.
      for (const t of changes(plan)) {
        const sending = sendingAt(plan, t);
        if (sending.length > 1) expect(sending.reduce((sum, g) => sum + g.rate, 0)).toBeLessThanOrEqual(plan.options.budget + 1e-9);
      }
    }
  });

  it("budgets a row's load when it sends, not its average over the slot", () => {
    // Row 12 at scale 1 (15 per 10 s) twice: each sends 7.5/s in its first window (its steady
    // client's 2 x 15 per window, bursts of 30 every 2/3 of a window), then less (bursts, the retry
    // client's fill, its wait), 6.4/s on average over its 31 s slot. Their averages fit a budget
    // of 13/s, so the old rule started both at 0, at 15/s; their first windows must not overlap.
    const o = options({ timeScale: 1, windows: 1, minPhaseS: 0, budget: 13 });
    const plan = planRun([publishedRow(12), publishedRow(12)], o, hostedApiClassifier);
    const [a, b] = plan.rules;
    expect(a!.averageRate + b!.averageRate).toBeLessThanOrEqual(o.budget);
    expect(a!.load[0]).toEqual({ fromMs: 0, toMs: 10_000, rate: 7.5 });
    const [first, second] = [a!, b!].sort((x, y) => x.startMs - y.startMs);
    expect(second!.startMs).toBeGreaterThanOrEqual(first!.startMs + first!.steady.durationMs);
    // ...and the second need not wait for the first's slot to end.
    expect(second!.startMs).toBeLessThan(first!.startMs + first!.durationMs);
    for (const t of changes(plan)) expect(sendingAt(plan, t).reduce((sum, g) => sum + g.rate, 0)).toBeLessThanOrEqual(o.budget + 1e-9);
  });

  it("paces a large fill at one row's rate, the rate its load was budgeted at", () => {
    // Row 25: a fill of 1002 is more than a burst may be, so it goes at 400/s, over 2.5 s, a
    // window after the steady client's start, beside the one burst (200, which cannot reach 1000).
    const p = planRule(publishedRow(25), options({ timeScale: 1, ruleRateCap: 400, windows: 1 }), 0);
    const retry = p.retry;
    if (retry.kind !== "run") throw new Error("row 25's retry client runs");
    expect(retry.fillMs).toBeCloseTo(2505);
    expect([0, 1, 501, 1001].map((n) => fillOffsetMs(retry, n))).toEqual([0, 2.5, 1252.5, 2502.5]);
    expect(p.load.find((g) => g.fromMs === retry.offsetMs)?.rate).toBeCloseTo(
      (1004 * 1000) / Math.max(2505, burstSpacing(p.windowMs)) + (200 * 1000) / burstSpacing(p.windowMs),
    );
    // A small fill goes at once.
    const small = planRule(publishedRow(12), options({ timeScale: 1 }), 0);
    expect(small.retry).toMatchObject({ kind: "run", fillMs: 0 });
    expect(fillOffsetMs({ fillSize: 17, fillMs: 0 }, 16)).toBe(0);
  });

  it("adds up a row's own overlapping clients into one profile", () => {
    expect(
      loadProfile([
        { fromMs: 0, toMs: 10, rate: 3 },
        { fromMs: 5, toMs: 15, rate: 2 },
        { fromMs: 20, toMs: 20, rate: 9 },
        { fromMs: 30, toMs: 40, rate: 0 },
        { fromMs: 15, toMs: 18, rate: 2 },
      ]),
    ).toEqual([
      { fromMs: 0, toMs: 5, rate: 3 },
      { fromMs: 5, toMs: 10, rate: 5 },
      { fromMs: 10, toMs: 18, rate: 2 },
    ]);
  });

  it("refuses a rule whose derived traffic would meet another row", () => {
    const broken = { ...publishedRow(12), identity: "ip" as const };
    expect(() => planRun([broken], options(), hostedApiClassifier)).toThrow(/meets row 29, not row 12/);
  });
});
