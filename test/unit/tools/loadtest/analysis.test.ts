import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FixedWindow, SlidingWindow } from "../../../../src/core/limiter/index.ts";
import {
  analyzeRule,
  headerExposures,
  maxHeaderExposure,
  maxProvenInWindow,
  percentiles,
  underAdmission,
  type AnalysisInput,
} from "../../../../tools/loadtest/analysis.ts";
import { toleranceMs, type Answer } from "../../../../tools/loadtest/answer.ts";
import { failsRun } from "../../../../tools/loadtest/outcome.ts";
import { judgeRetry } from "../../../../tools/loadtest/retry.ts";
import { chartSeries } from "../../../../tools/loadtest/series.ts";
import { simulate, toolTraffic, type Network } from "./simulate.ts";
import { seededRandom } from "../../../../bench/accuracy/traffic.ts";

/** The analysis input for a rule that runs from 0 for `durationMs`, its retry client not simulated. */
const input = (count: number, windowMs: number, durationMs: number, intendedRate: number, intervalS = windowMs / 1000): AnalysisInput => ({
  count,
  intervalS,
  windowMs,
  startMs: 0,
  durationMs,
  steady: { offsetMs: 0, durationMs },
  intendedRate,
  retrySkipped: "not simulated",
});

/** The highest step of every counter's line: what the chart shows as the most proven in one window. */
const chartPeak = (series: ReturnType<typeof chartSeries>) => Math.max(0, ...series.counters.flatMap((c) => c.proven));

const span = (s: number, r: number, remaining?: number) => ({ s, r, ...(remaining === undefined ? {} : { remaining }) });

describe("maxProvenInWindow", () => {
  it("counts only admissions whose send and receipt lie within one window", () => {
    // Window 100 ms (tolerance 5.1): three answers inside [0, 94.9), the fourth received too late.
    const adm = [span(0, 10), span(20, 30), span(50, 90), span(60, 95)];
    expect(maxProvenInWindow(adm, 100)).toEqual({ admitted: 3, atMs: 0 });
    // From the second answer on, the fourth fits.
    expect(maxProvenInWindow([...adm, span(70, 80)], 100).admitted).toBe(4);
  });

  it("treats slow answers conservatively: a long [send, receipt] interval proves nothing", () => {
    const adm = [span(0, 200), span(10, 20), span(30, 40)];
    expect(maxProvenInWindow(adm, 100).admitted).toBe(2);
  });

  it("is zero without admissions", () => {
    expect(maxProvenInWindow([], 100)).toEqual({ admitted: 0, atMs: 0 });
  });
});

describe("maxHeaderExposure", () => {
  it("adds the r the gateway still offered to the admissions certainly in its window", () => {
    // count 3: two admissions answered before the third was sent, all within the window.
    const ok = [span(0, 5, 2), span(10, 15, 1), span(20, 25, 0)];
    expect(maxHeaderExposure(ok, 1000)).toMatchObject({ exposure: 3 });
    // A gateway that forgot them says r=2 at the third: 3 proven + 2 offered.
    const forgot = [span(0, 5, 2), span(10, 15, 1), span(20, 25, 2)];
    expect(maxHeaderExposure(forgot, 1000)).toMatchObject({ exposure: 5, proven: 3, remaining: 2, atMs: 20 });
  });

  it("does not count admissions that may have left the window or may come after", () => {
    // The first was sent more than a window before the third's answer: it may have expired.
    const adm = [span(0, 5, 2), span(990, 995, 2), span(1000, 1010, 2)];
    expect(maxHeaderExposure(adm, 1000).exposure).toBe(4); // 990 and 1000 proven, + r 2
    // Overlapping requests (the earlier one answered after the later was sent) are not ordered.
    expect(maxHeaderExposure([span(0, 50, 1), span(10, 20, 1)], 1000).exposure).toBe(2);
  });
});

describe("underAdmission", () => {
  it("finds denials made while the window provably had room", () => {
    const adm = [span(0, 5), span(10, 15)];
    // count 3: a denial at 20 with only two possible admissions in its window.
    expect(underAdmission(adm, [span(20, 25)], 3, 1000)).toEqual({ maxFreeAtDenial: 1, earlyDenials: 1 });
    expect(underAdmission(adm, [span(20, 25)], 2, 1000)).toEqual({ maxFreeAtDenial: 0, earlyDenials: 0 });
    // Long after the window: both admissions may still count (they could have been decided late).
    expect(underAdmission(adm, [span(1500, 1510)], 2, 1000).earlyDenials).toBe(1);
  });
});

describe("percentiles", () => {
  it("uses nearest rank", () => {
    const values = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentiles(values)).toEqual({ count: 100, p50: 50, p95: 95, p99: 99 });
    expect(percentiles([])).toEqual({ count: 0, p50: null, p95: null, p99: null });
  });
});

describe("judgeRetry", () => {
  const fill = (s: number, status: number): Answer => ({ kind: "fill", identity: "r", sendMs: s, recvMs: s + 5, status });
  const probe: Answer = { kind: "probe", identity: "r", sendMs: 20, recvMs: 25, status: 429, retryAfterS: 1 };

  it("passes a retry admitted after Retry-After and reports the over-wait", () => {
    const answers = [fill(0, 200), fill(0, 200), fill(1, 429), probe, { kind: "retry", identity: "r", sendMs: 1025, recvMs: 1030, status: 200 } as Answer];
    // The window (100 ms) freed by 5 + 100 = 105 ms; Retry-After sent the client back at 1025.
    expect(judgeRetry(answers, 100)).toEqual({
      outcome: "held",
      finding: "admitted on its first retry after Retry-After 1 s",
      retryAfterS: 1,
      waitedMs: 1000,
      overWaitMs: 920,
    });
  });

  it("fails a retry refused on its first honoured retry", () => {
    const answers = [fill(0, 200), probe, { kind: "retry", identity: "r", sendMs: 1025, recvMs: 1030, status: 429 } as Answer];
    expect(judgeRetry(answers, 100)).toMatchObject({ outcome: "failed", finding: "refused on its first retry after Retry-After 1 s" });
  });

  it("honours a refusal from the fill itself when the whole fill fitted in one window", () => {
    const refusal: Answer = { kind: "fill", identity: "r", sendMs: 1, recvMs: 9, status: 429, retryAfterS: 1 };
    const answers = [fill(0, 200), fill(0, 200), refusal, { kind: "retry", identity: "r", sendMs: 1009, recvMs: 1012, status: 200 } as Answer];
    expect(judgeRetry(answers, 100)).toMatchObject({ outcome: "held", retryAfterS: 1, waitedMs: 1000 });
    // Spread over more than a window, a fill refusal proves nothing (an admission may have expired).
    expect(judgeRetry(answers, 8)).toMatchObject({ outcome: "unjudged", why: expect.stringMatching(/not answered within one window/) });
  });

  it("leaves the client unjudged, saying why, when no probe was refused", () => {
    expect(judgeRetry([fill(0, 200), { ...probe, status: 200 }], 100)).toEqual({
      outcome: "unjudged",
      finding: "no Retry-After promise to test",
      why: "no probe was refused: the window never filled, the answers took longer than a window",
    });
  });
});

describe("chartSeries", () => {
  const ok = (sendMs: number, recvMs: number, identity = "a", kind: Answer["kind"] = "steady"): Answer => ({ kind, identity, sendMs, recvMs, status: 200 });

  it("plots, per window end, the admissions proven inside that window, per counter", () => {
    // Window 100 ms (span 94.9): the three answers all lie in the windows ending from 65.1 to 100 ms
    // (a window [x - 100, x) holds an answer sent at or after x - 100 and received before x - 5.1).
    const answers = [ok(0, 10), ok(20, 30), ok(50, 60), ok(500, 510, "b", "burst")];
    const s = chartSeries(answers, [], 0, 1000, 100, 10);
    expect(s.t).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(s.counters).toEqual([
      { counter: "a", clients: ["steady"], proven: [3, 3, 0, 0, 0, 0, 0, 0, 0, 0] },
      { counter: "b", clients: ["burst"], proven: [0, 0, 0, 0, 0, 1, 1, 0, 0, 0] },
    ]);
    expect(s.hidden.every((n) => n === 0)).toBe(true);
    expect(s.denied).toEqual([]);
  });

  it("finds a step's highest value between samples: a window only one instant holds", () => {
    // Both fit only in windows starting at exactly 0 (the second answer arrives at 94.8, just inside).
    const s = chartSeries([ok(0, 1), ok(0.1, 94.8)], [], 0, 1000, 100, 10);
    expect(Math.max(...s.counters[0]!.proven)).toBe(2);
  });

  it("marks the windows an admission slower than a window may lie in, and counts it in none", () => {
    const s = chartSeries([ok(200, 450), ok(600, 620)], [], 0, 1000, 100, 10);
    // [200, 450] could be decided in any window ending in (200, 550]: steps 0.2 to 0.5.
    expect(s.hidden).toEqual([0, 0, 1, 1, 1, 1, 0, 0, 0, 0]);
    expect(s).toMatchObject({ hiddenTotal: 1, hiddenMaxLatencyMs: 250 });
    expect(chartPeak(s)).toBe(1);
  });

  it("puts denials on their own series, per client, by receipt in the trailing window", () => {
    const denied = (recvMs: number, kind: Answer["kind"]): Answer => ({ kind, identity: kind, sendMs: recvMs - 5, recvMs, status: 429 });
    const s = chartSeries([denied(120, "steady"), denied(150, "steady"), denied(130, "fill")], [], 0, 1000, 100, 10);
    expect(s.denied).toEqual([
      { client: "steady", values: [0, 2, 2, 0, 0, 0, 0, 0, 0, 0] },
      { client: "retry", values: [0, 1, 1, 0, 0, 0, 0, 0, 0, 0] },
    ]);
  });

  it("spans every window the verdict looked at, even when answers come late", () => {
    const s = chartSeries([ok(900, 1400)], [], 0, 1000, 100, 10);
    expect(s.t.at(-1)).toBe(1.4);
  });
});

/** A loaded machine's network: mostly fast, sometimes very slow, in both directions. */
const networkArb = fc.record({
  typical: fc.double({ min: 0, max: 20, noNaN: true }),
  tail: fc.double({ min: 0, max: 300, noNaN: true }),
  tailShare: fc.double({ min: 0, max: 0.2, noNaN: true }),
  clockOffsetMs: fc.double({ min: -1e6, max: 1e6, noNaN: true }),
  seed: fc.integer(),
});

function network(n: { typical: number; tail: number; tailShare: number; clockOffsetMs: number; seed: number }): Network {
  const random = seededRandom(n.seed);
  const latency = () => (random() < n.tailShare ? random() * n.tail : random() * n.typical);
  return { toGateway: latency, fromGateway: latency, clockOffsetMs: n.clockOffsetMs };
}

describe("a correct sliding window is never flagged", () => {
  it("whatever the traffic, the latencies and the clocks (property)", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        // Scaled windows are fractional; the gateway rounds them to whole milliseconds.
        fc.double({ min: 20, max: 5000, noNaN: true }),
        fc.array(
          fc.record({
            gap: fc.double({ min: 0, max: 3000, noNaN: true }),
            size: fc.integer({ min: 1, max: 60 }),
            spread: fc.double({ min: 0, max: 200, noNaN: true }),
          }),
          { minLength: 1, maxLength: 25 },
        ),
        networkArb,
        (count, windowMs, groups, net) => {
          const random = seededRandom(net.seed ^ 0x5bd1e995);
          const sends: { sendMs: number }[] = [];
          let t = 0;
          for (const g of groups) {
            t += g.gap * (windowMs / 1000);
            for (let i = 0; i < g.size; i++) sends.push({ sendMs: t + random() * g.spread });
          }
          const limiter = new SlidingWindow({ count, intervalMs: Math.max(1, Math.round(windowMs)) });
          const answers = simulate(
            limiter,
            sends.sort((a, b) => a.sendMs - b.sendMs),
            network(net),
          );
          const adm = answers.filter((a) => a.status === 200).map((a) => ({ s: a.sendMs, r: a.recvMs, remaining: a.remaining }));
          const proven = maxProvenInWindow(adm, windowMs).admitted;
          expect(proven).toBeLessThanOrEqual(count);
          expect(maxHeaderExposure(adm, windowMs).exposure).toBeLessThanOrEqual(count);
          // The chart plots exactly what the verdict saw: its highest step is the verdict's figure.
          const points = headerExposures(adm, windowMs).map((h) => ({ sendMs: h.atMs, exposure: h.exposure }));
          const series = chartSeries(answers, points, 0, t + 1, windowMs, 37);
          expect(chartPeak(series)).toBe(proven);
          expect(Math.max(0, ...series.header.map((h) => h ?? 0))).toBeLessThanOrEqual(count);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("under the tool's own traffic at 2x load, with full figures", () => {
    const random = seededRandom(7);
    const windowMs = 10_000 / 60;
    const count = 15;
    const { steady, burst } = toolTraffic({ windowMs, count, rate: 180, durationMs: 6000, burstSize: 30, bursts: 8, random });
    const net: Network = { toGateway: () => 1 + random() * 20, fromGateway: () => 1 + random() * 20, clockOffsetMs: 1234.5 };
    const answers = [
      ...simulate(new SlidingWindow({ count, intervalMs: 167 }), steady, net, "steady"),
      ...simulate(new SlidingWindow({ count, intervalMs: 167 }), burst, net, "burst"),
    ];
    const { judgement, figures, series } = analyzeRule(input(count, windowMs, 6000, 180, 10), answers);
    expect(judgement).toMatchObject({ outcome: "held", finding: "at most 15 admitted in any 10 s window, limit 15" });
    expect(judgement.checks).toMatchObject({ window: { outcome: "held" }, header: { outcome: "held" }, retry: { outcome: "skipped", why: "not simulated" } });
    expect(figures.limitReached).toBe(true);
    expect(figures.maxInWindow.admitted).toBe(count);
    expect(figures.steadyUtilization).toBeGreaterThan(0.8);
    // Held: the chart reaches the limit and never crosses it.
    expect(chartPeak(series)).toBe(count);
    expect(series.hiddenTotal).toBe(0);
  });
});

describe("a fixed-window counter is caught", () => {
  const phases = fc.double({ min: 0, max: 1e6, noNaN: true });

  it("by the bursts alone, at any phase of its windows (timing check)", () => {
    fc.assert(
      fc.property(phases, fc.integer({ min: 1, max: 40 }), (clockOffsetMs, count) => {
        const windowMs = 1000;
        const random = seededRandom(Math.floor(clockOffsetMs));
        const { burst } = toolTraffic({ windowMs, count, rate: 1, durationMs: 0, burstSize: count * 2 + 2, bursts: 4, random });
        const net: Network = { toGateway: () => 1 + random() * 10, fromGateway: () => 1 + random() * 10, clockOffsetMs };
        const answers = simulate(new FixedWindow({ count, intervalMs: windowMs }), burst, net);
        const adm = answers.filter((a) => a.status === 200).map((a) => ({ s: a.sendMs, r: a.recvMs }));
        expect(maxProvenInWindow(adm, windowMs).admitted).toBeGreaterThan(count);
      }),
      { numRuns: 300 },
    );
  });

  it("by the steady client's RateLimit headers, at any phase (header check)", () => {
    fc.assert(
      fc.property(phases, fc.integer({ min: 2, max: 40 }), (clockOffsetMs, count) => {
        const windowMs = 1000;
        const random = seededRandom(Math.floor(clockOffsetMs) + 1);
        const { steady } = toolTraffic({ windowMs, count, rate: (2 * count * 1000) / windowMs, durationMs: 3 * windowMs, burstSize: 0, bursts: 0, random });
        const net: Network = { toGateway: () => 1 + random() * 10, fromGateway: () => 1 + random() * 10, clockOffsetMs };
        const answers = simulate(new FixedWindow({ count, intervalMs: windowMs }), steady, net);
        const adm = answers.filter((a) => a.status === 200).map((a) => ({ s: a.sendMs, r: a.recvMs, remaining: a.remaining }));
        expect(maxHeaderExposure(adm, windowMs).exposure).toBeGreaterThan(count);
      }),
      { numRuns: 300 },
    );
  });

  it("and analyzeRule reports the rule failed, naming the window", () => {
    const random = seededRandom(11);
    const windowMs = 1000;
    const count = 15;
    const { steady, burst } = toolTraffic({ windowMs, count, rate: 30, durationMs: 6000, burstSize: 30, bursts: 8, random });
    const net: Network = { toGateway: () => 2 + random() * 10, fromGateway: () => 2 + random() * 10, clockOffsetMs: 400 };
    const answers = [
      ...simulate(new FixedWindow({ count, intervalMs: windowMs }), steady, net, "steady"),
      ...simulate(new FixedWindow({ count, intervalMs: windowMs }), burst, net, "burst"),
    ];
    const { judgement, figures, series } = analyzeRule(input(count, windowMs, 6000, 30, 60), answers);
    expect(judgement.outcome).toBe("failed");
    expect(figures.maxInWindow.admitted).toBeGreaterThan(count);
    expect(judgement.finding).toBe(`${figures.maxInWindow.admitted} admitted in one 60 s window, limit 15`);
    // Both ends of the window it found, in seconds since the rule started, as the chart marks it.
    const at = (ms: number) => `${Math.round(ms / 10) / 100} s`;
    const { admitted, atMs } = figures.maxInWindow;
    expect(judgement.why).toBe(`all ${admitted} were sent and answered between ${at(atMs)} and ${at(atMs + windowMs)}`);
    expect(judgement.checks.header).toMatchObject({ outcome: "failed", why: expect.stringMatching(/lost count of admissions still in its window/) });
    // The chart shows the violation the verdict reports, at the same height.
    expect(chartPeak(series)).toBe(figures.maxInWindow.admitted);
  });
});

describe("the window check's words, with their reasons", () => {
  const run = (count: number, rate: number, latency: () => number) => {
    const random = seededRandom(5);
    const windowMs = 10_000 / 60;
    const { steady, burst } = toolTraffic({ windowMs, count, rate, durationMs: 6000, burstSize: Math.min(2 * count, 200), bursts: 5, random });
    const net: Network = { toGateway: latency, fromGateway: latency, clockOffsetMs: 77 };
    const answers = [
      ...simulate(new SlidingWindow({ count, intervalMs: 167 }), steady, net, "steady"),
      ...simulate(new SlidingWindow({ count, intervalMs: 167 }), burst, net, "burst"),
    ];
    return analyzeRule(input(count, windowMs, 6000, (2 * count) / (windowMs / 1000), 10), answers);
  };

  it("held, saying how many admissions were too slow to place when some were", () => {
    const a = (sendMs: number, recvMs: number, status = 200): Answer => ({ kind: "steady", identity: "a", sendMs, recvMs, status, remaining: 0 });
    const answers = [a(0, 10), a(2000, 3500), a(5000, 5010, 429)];
    const { judgement, series } = analyzeRule(input(1, 1000, 6000, 2), answers);
    expect(judgement).toEqual(
      expect.objectContaining({
        outcome: "held",
        finding: "at most 1 admitted in any 1 s window, limit 1",
        why: "a window was proven full and none held more, though 1 of 2 admissions took 994 ms or longer to answer and fit no window (shaded on the chart)",
      }),
    );
    expect(series.hiddenTotal).toBe(1);
    expect(analyzeRule(input(1, 1000, 6000, 2), [a(0, 10), a(5000, 5010, 429)]).judgement.why).toBeUndefined();
  });

  it("when the limit was out of reach: held would claim what was never tested", () => {
    const { judgement, figures } = run(6000, 200, () => 3);
    expect(figures.limitReached).toBe(false);
    expect(judgement).toMatchObject({
      outcome: "unjudged",
      finding: `at most ${figures.maxInWindow.admitted} admitted in any 10 s window, limit 6000`,
      why: "the limit was never reached: the gateway refused nothing (the steady client offered 200/s of the 72000/s asked)",
    });
    expect(failsRun(judgement.outcome)).toBe(false);
  });

  it("when answers slower than a window hide admissions: the chart marks where, never crossing the limit", () => {
    const random = seededRandom(9);
    const { judgement, figures, series } = run(15, 180, () => (random() < 0.4 ? 100 + random() * 900 : 30 + random() * 50));
    expect(figures.limitReached).toBe(true);
    expect(judgement.outcome).toBe("unjudged");
    expect(judgement.finding).toMatch(/^at most \d+ admitted in any provable 10 s window, limit 15$/);
    expect(judgement.why).toMatch(
      new RegExp(`^the gateway refused requests, but ${series.hiddenTotal} of ${figures.admitted} admissions took 162 ms or longer to answer`),
    );
    expect(series.hidden.some((n) => n > 0)).toBe(true);
    expect(chartPeak(series)).toBe(figures.maxInWindow.admitted);
    expect(chartPeak(series)).toBeLessThan(15);
  });
});

describe("errors", () => {
  it("make the rule's outcome an error (exit 1), listed by kind", () => {
    const answers: Answer[] = [
      { kind: "steady", identity: "a", sendMs: 0, recvMs: 5, status: 200, remaining: 1 },
      { kind: "steady", identity: "a", sendMs: 10, recvMs: 15, status: 0, error: "network: ECONNRESET" },
      { kind: "steady", identity: "a", sendMs: 20, recvMs: 25, status: 500, error: "status 500" },
    ];
    const { judgement, figures } = analyzeRule(input(2, 1000, 1000, 4), answers);
    expect(figures.errors).toBe(2);
    expect(judgement).toMatchObject({ outcome: "error", finding: "2 answer(s) were no decision of the limit", why: expect.stringMatching(/ECONNRESET x1/) });
    expect(failsRun(judgement.outcome)).toBe(true);
  });

  it("the tolerance grows with the window (clock rate drift)", () => {
    expect(toleranceMs(0)).toBe(5);
    expect(toleranceMs(60_000)).toBe(65);
  });
});
