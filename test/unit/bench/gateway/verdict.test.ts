import { describe, expect, it } from "vitest";
import { planShape, expectationFor } from "../../../../bench/gateway/shapes.ts";
import { burstVerdict, checkAnswers, statusSummary } from "../../../../bench/gateway/verdict.ts";

const answers = (statuses: Record<string, number>, errors = 0) => {
  const answered = Object.values(statuses).reduce((a, b) => a + b, 0);
  const admitted = Object.entries(statuses)
    .filter(([s]) => s.startsWith("2"))
    .reduce((a, [, n]) => a + n, 0);
  return { statuses, errors, answered, admitted };
};

describe("burstVerdict", () => {
  it("is exact when admitted equals count, over-admitted above it, under-admitted below", () => {
    expect(burstVerdict(15, 15)).toBe("exact");
    expect(burstVerdict(16, 15)).toBe("over-admitted");
    expect(burstVerdict(14, 15)).toBe("under-admitted");
  });
});

describe("checkAnswers", () => {
  it("passes an exact burst and fails an over-admitting one, loudly", () => {
    const exact = checkAnswers({ kind: "burst", count: 15 }, answers({ 200: 15, 429: 135 }), 150);
    expect(exact).toMatchObject({ ok: true, summary: "15/15 exact", burst: "exact" });

    const over = checkAnswers({ kind: "burst", count: 15 }, answers({ 200: 16, 429: 134 }), 150);
    expect(over).toMatchObject({ ok: false, summary: "16/15 OVER-ADMITTED", burst: "over-admitted" });
    expect(over.problem).toMatch(/admitted 16 .* limit is 15: the limit did not hold/);
  });

  it("lets a burst under-admit (a conservative limiter), but not answer 5xx", () => {
    expect(checkAnswers({ kind: "burst", count: 15 }, answers({ 200: 10, 429: 140 }), 150)).toMatchObject({ ok: true, burst: "under-admitted" });
    expect(checkAnswers({ kind: "burst", count: 15 }, answers({ 200: 15, 429: 130, 503: 5 }), 150)).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/503 x5/),
    });
  });

  it("demands every answer 2xx, or every answer 429, as the shape says", () => {
    expect(checkAnswers({ kind: "admit-all" }, answers({ 200: 1000 }), 1000)).toEqual({ ok: true, summary: "200 x1000" });
    expect(checkAnswers({ kind: "admit-all" }, answers({ 200: 990, 429: 10 }), 1000)).toMatchObject({
      ok: false,
      problem: "expected every answer 2xx, got 200 x990, 429 x10",
    });
    expect(checkAnswers({ kind: "deny-all" }, answers({ 429: 3000 }), 3000).ok).toBe(true);
    expect(checkAnswers({ kind: "deny-all" }, answers({ 200: 1, 429: 2999 }), 3000).ok).toBe(false);
  });

  it("fails a run whose requests went unanswered", () => {
    const check = checkAnswers({ kind: "admit-all" }, answers({ 200: 998 }, 2), 1000);
    expect(check).toMatchObject({ ok: false, problem: "2 of 1000 unanswered (2 connection errors or timeouts)" });
  });
});

describe("expectationFor", () => {
  it("holds the bare Worker, which limits nothing, to admitting everything", () => {
    const plan = planShape("hot-key", 1, { keys: 10, warmPasses: 1, requests: 10, burstFactor: 10, connections: 4 });
    expect(expectationFor(plan, "bare")).toEqual({ kind: "admit-all" });
    expect(expectationFor(plan, "gateway")).toEqual({ kind: "burst", count: 15 });
  });
});

describe("statusSummary", () => {
  it("lists statuses in order", () => {
    expect(statusSummary({ 429: 2, 200: 3 })).toBe("200 x3, 429 x2");
    expect(statusSummary({})).toBe("no answer");
  });
});
