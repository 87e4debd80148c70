import { describe, expect, it } from "vitest";
import { hostedApiClassifier, hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import { burstSpacing, planRule, planRun, type PlanOptions } from "../../../../tools/loadtest/plan.ts";
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
  it("fits the whole table at time scale 60 in the longest rule's time, never above the budget", () => {
    for (const region of ["us", "eu"] as const) {
      const plan = planRun(hostedApiTable.rules, options({ region }), hostedApiClassifier);
      expect(plan.rules).toHaveLength(29);
      expect(plan.durationMs).toBeLessThanOrEqual(240_000);
      const points = plan.rules.map((r) => r.startMs);
      for (const t of points) {
        const running = plan.rules.filter((r) => r.startMs <= t && t < r.startMs + r.durationMs);
        const load = running.reduce((sum, r) => sum + r.averageRate, 0);
        expect(load).toBeLessThanOrEqual(plan.options.budget);
      }
    }
  });

  it("refuses a rule whose derived traffic would meet another row", () => {
    const broken = { ...publishedRow(12), identity: "ip" as const };
    expect(() => planRun([broken], options(), hostedApiClassifier)).toThrow(/meets row 29, not row 12/);
  });
});
