// The pacing math: each row's own time scale from a measured capacity (tools/loadtest/pacing.ts),
// and the plan it makes for every row of every table in both regions. Pure: no gateway, no clock.
import { describe, expect, it } from "vitest";
import { allRules, classifiers, tableOfRule } from "../../../../src/core/rules/tables.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import {
  fixedPace,
  ladderFloor,
  MAX_SPARE_LOAD,
  MAX_TIME_SCALE,
  paceRow,
  rowRateCap,
  runBudget,
  SCALE_LADDER,
  type PacingOptions,
} from "../../../../tools/loadtest/pacing.ts";
import { planRun, type PlanOptions } from "../../../../tools/loadtest/plan.ts";
import { REGIONS } from "../../../../src/core/rules/schema.ts";

const pacing = (capacity: number, overrides: Partial<PacingOptions> = {}): PacingOptions => ({
  capacity,
  share: DEFAULTS.share,
  load: DEFAULTS.load,
  ruleRateCap: DEFAULTS.ruleRateCap,
  minWindowS: DEFAULTS.minWindowS,
  ...overrides,
});

describe("the run's budget and one row's cap", () => {
  it("plan a share of the measured capacity, and a third of it at most for one row", () => {
    expect(runBudget({ capacity: 1500, share: 0.8 })).toBe(1200);
    expect(rowRateCap(pacing(1500, { share: 0.8 }))).toBe(400); // a third of the budget, the --rule-rate-cap too
    expect(rowRateCap(pacing(2000, { share: 0.8 }))).toBe(400); // --rule-rate-cap below a third of 1600
    expect(rowRateCap(pacing(600, { share: 0.7 }))).toBe(140); // a third of 420
    expect(runBudget({ capacity: 0, share: 0.8 })).toBe(1);
  });
});

describe("ladderFloor", () => {
  it("takes the largest step at or below, the smallest below them all", () => {
    expect(ladderFloor(1)).toBe(1);
    expect(ladderFloor(0.513)).toBe(0.5);
    expect(ladderFloor(449.9)).toBe(300);
    expect(ladderFloor(0.001)).toBe(SCALE_LADDER[0]);
    expect(ladderFloor(1e9)).toBe(SCALE_LADDER.at(-1));
    expect(SCALE_LADDER.at(-1)!).toBeLessThanOrEqual(MAX_TIME_SCALE);
  });
});

describe("paceRow", () => {
  it("slows the busiest rows below 1: 6000 per 10 s becomes a 20 s window at 390/s", () => {
    const p = paceRow({ count: 6000, intervalS: 10 }, pacing(1500, { load: 1.3, share: 0.8 }));
    expect(p.timeScale).toBe(0.5);
    expect(p.windowS).toBe(20);
    expect(p.steadyRate).toBeCloseTo(390);
    expect(p.why).toMatch(
      /^scale 0\.5 \(20 s window, 390\/s\): 1\.3 x 6000 per window must fit 400\/s \(a third of the run's 1200\/s, 80 % of the 1500\/s measured\)$/,
    );
  });

  it("gives a busy row a window long enough for slow answers: 2000 per 10 s at 918/s measured is 13.3 s, not 10 s", () => {
    // A third of the 642/s planned (70 %) is 214/s: 1.4 x 2000 per 10 s (280/s) does not fit; 0.75 is the step below.
    const p = paceRow({ count: 2000, intervalS: 10 }, pacing(918, { load: 1.4, share: 0.7 }));
    expect(p.timeScale).toBe(0.75);
    expect(p.windowS).toBeCloseTo(13.33);
    expect(p.steadyRate).toBeCloseTo(210);
    expect(p.load).toBe(1.4);
  });

  it("speeds the hour-long rows up to the shortest window that still proves full: minutes, not hours", () => {
    const p = paceRow({ count: 30, intervalS: 3600 }, pacing(1500, { minWindowS: 8 }));
    expect(p.windowS).toBeGreaterThanOrEqual(8);
    expect(p.windowS).toBeLessThan(16);
    expect(p.why).toMatch(/a 8 s window at least/);
  });

  it("gives every row of every table, in both regions, a ladder scale whose rate fits and whose window proves", () => {
    for (const capacity of [60, 250, 1000, 3000]) {
      const o = pacing(capacity);
      for (const region of REGIONS) {
        for (const rule of allRules) {
          const { count, interval } = rule.limits[region];
          const p = paceRow({ count, intervalS: interval }, o);
          expect(SCALE_LADDER, `row ${rule.id}`).toContain(p.timeScale);
          expect(p.windowS).toBeCloseTo(interval / p.timeScale);
          // The steady client offers load x count in one window (more, up to twice the count, when
          // the window is held to its shortest and the rate is there to spare)...
          expect(p.steadyRate * p.windowS).toBeCloseTo(p.load * count);
          expect(p.load).toBeGreaterThanOrEqual(o.load);
          expect(p.load).toBeLessThanOrEqual(MAX_SPARE_LOAD);
          if (p.load > o.load) expect(p.why).toMatch(/the rate to spare$/);
          // ...at a rate one row may send here (unless even the ladder's slowest step is too fast).
          if (p.timeScale > SCALE_LADDER[0]!) expect(p.steadyRate, `row ${rule.id} at ${capacity}/s`).toBeLessThanOrEqual(rowRateCap(o) + 1e-9);
          // The window is never scaled below what answers can prove full.
          expect(p.windowS, `row ${rule.id}`).toBeGreaterThanOrEqual(o.minWindowS - 1e-9);
        }
      }
    }
  });

  it("is monotone in the capacity: a faster target never gets a slower scale", () => {
    for (const rule of allRules) {
      const row = { count: rule.limits.us.count, intervalS: rule.limits.us.interval };
      let last = 0;
      for (const capacity of [50, 100, 200, 400, 800, 1600, 3200]) {
        const k = paceRow(row, pacing(capacity)).timeScale;
        expect(k).toBeGreaterThanOrEqual(last);
        last = k;
      }
    }
  });
});

describe("fixedPace", () => {
  it("keeps the one scale and says when a row asks more than it may send", () => {
    const p = fixedPace({ count: 6000, intervalS: 10 }, 1, pacing(1000, { load: 1.3, share: 0.8 }), "a deployed gateway runs in real time");
    expect(p).toMatchObject({ timeScale: 1, load: 1.3, windowS: 10, steadyRate: 780 });
    expect(p.why).toMatch(/a deployed gateway runs in real time; it asks 780\/s, more than the 267\/s one row may send here/);
    expect(fixedPace({ count: 15, intervalS: 10 }, 1, pacing(1000, { load: 1.3 }), "x").why).toBe("scale 1 (10 s window, 1.95/s): x");
  });
});

describe("a paced plan of every table in both regions", () => {
  const capacity = 1200;
  const o = pacing(capacity);
  const options: PlanOptions = {
    ...DEFAULTS,
    region: "us",
    regions: ["us", "eu"],
    timeScale: 1,
    budget: runBudget(o),
    ruleRateCap: rowRateCap(o),
    varyIp: true,
    runId: "t",
  };
  const plan = planRun(
    allRules,
    options,
    (r) => classifiers[tableOfRule(r.id)!],
    (rule, region) => ({
      region,
      ...paceRow({ count: rule.limits[region].count, intervalS: rule.limits[region].interval }, o),
    }),
  );

  it("has each row once per region, with its own scale and reason, on a handful of gateways", () => {
    expect(plan.rules).toHaveLength(2 * allRules.length);
    expect(new Set(plan.rules.map((r) => r.key)).size).toBe(plan.rules.length);
    expect(plan.rules.filter((r) => r.region === "eu").map((r) => r.rule.id)).toEqual(allRules.map((r) => r.id));
    for (const r of plan.rules) expect(r.scaleWhy).toMatch(new RegExp(`^scale ${r.timeScale} `));
    const gateways = new Set(plan.rules.map((r) => `${r.region}@${r.timeScale}`));
    expect(gateways.size).toBeLessThanOrEqual(2 * 10);
    // Different limits in eu (row 16: 2000 per 60 s, not 10000) pace differently.
    const row16 = (region: string) => plan.rules.find((r) => r.region === region && r.rule.id === 16)!;
    expect(row16("eu").timeScale).toBeGreaterThan(row16("us").timeScale);
  });

  it("offers every row its limit within one window, never capped, and never exceeds the budget", () => {
    for (const r of plan.rules) {
      expect(r.steadyRate, r.key).toBeCloseTo(r.intendedRate);
      expect(r.steadyRate * (r.windowMs / 1000), r.key).toBeGreaterThanOrEqual(r.count);
    }
    // At every moment a row's load changes, the rows' planned rates add up to the budget at most.
    for (const t of plan.rules.flatMap((r) => r.load.map((g) => r.startMs + g.fromMs))) {
      const load = plan.rules.flatMap((r) => r.load.filter((g) => r.startMs + g.fromMs <= t && t < r.startMs + g.toMs)).reduce((sum, g) => sum + g.rate, 0);
      expect(load).toBeLessThanOrEqual(plan.options.budget + 1e-9);
    }
  });

  it("finishes the hour-long rows in well under a minute each, and the whole plan in minutes", () => {
    for (const r of plan.rules.filter((x) => x.intervalS === 3600)) expect(r.durationMs, r.key).toBeLessThan(60_000);
    // The traffic is what the counts demand (about load x count per row) at the planned rate.
    const requests = plan.rules.reduce((sum, r) => sum + r.expectedRequests, 0);
    expect(plan.durationMs / 1000).toBeLessThan((2 * requests) / plan.options.budget);
    expect(plan.durationMs).toBeLessThan(10 * 60_000);
  });
});
