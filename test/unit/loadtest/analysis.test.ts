import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FixedWindow, SlidingWindow } from "../../../src/limiter/index.ts";
import {
  analyzeRule,
  judgeRetry,
  maxHeaderExposure,
  maxProvenInWindow,
  percentiles,
  toleranceMs,
  trailingSeries,
  underAdmission,
  type Answer,
} from "../../../src/tools/loadtest/analysis.ts";
import { mulberry32, simulate, toolTraffic, type Network } from "./simulate.ts";

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
    expect(judgeRetry(answers, 100)).toEqual({ status: "admitted", retryAfterS: 1, waitedMs: 1000, overWaitMs: 920 });
  });

  it("fails a retry refused on its first honoured retry", () => {
    const answers = [fill(0, 200), probe, { kind: "retry", identity: "r", sendMs: 1025, recvMs: 1030, status: 429 } as Answer];
    expect(judgeRetry(answers, 100)).toMatchObject({ status: "refused" });
  });

  it("honours a refusal from the fill itself when the whole fill fitted in one window", () => {
    const refusal: Answer = { kind: "fill", identity: "r", sendMs: 1, recvMs: 9, status: 429, retryAfterS: 1 };
    const answers = [fill(0, 200), fill(0, 200), refusal, { kind: "retry", identity: "r", sendMs: 1009, recvMs: 1012, status: 200 } as Answer];
    expect(judgeRetry(answers, 100)).toMatchObject({ status: "admitted", retryAfterS: 1, waitedMs: 1000 });
    // Spread over more than a window, a fill refusal proves nothing (an admission may have expired).
    expect(judgeRetry(answers, 8)).toMatchObject({ status: "not-reached" });
  });

  it("reports a probe that was admitted as not reached", () => {
    expect(judgeRetry([fill(0, 200), { ...probe, status: 200 }], 100)).toMatchObject({ status: "not-reached" });
  });
});

describe("trailingSeries", () => {
  it("counts answers in the trailing window per client", () => {
    const answers: Answer[] = [
      { kind: "steady", identity: "a", sendMs: 0, recvMs: 100, status: 200 },
      { kind: "steady", identity: "a", sendMs: 0, recvMs: 200, status: 429 },
      { kind: "burst", identity: "b", sendMs: 0, recvMs: 150, status: 200 },
    ];
    const series = trailingSeries(answers, 0, 1000, 500, 11);
    expect(series.t).toEqual([0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]);
    expect(series.lines[0]).toMatchObject({ client: "steady", admitted: [0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], denied: [0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0] });
    expect(series.lines[1]!.admitted).toEqual([0, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0]);
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
  const random = mulberry32(n.seed);
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
        fc.array(fc.record({ gap: fc.double({ min: 0, max: 3000, noNaN: true }), size: fc.integer({ min: 1, max: 60 }), spread: fc.double({ min: 0, max: 200, noNaN: true }) }), { minLength: 1, maxLength: 25 }),
        networkArb,
        (count, windowMs, groups, net) => {
          const random = mulberry32(net.seed ^ 0x5bd1e995);
          const sends: { sendMs: number }[] = [];
          let t = 0;
          for (const g of groups) {
            t += g.gap * (windowMs / 1000);
            for (let i = 0; i < g.size; i++) sends.push({ sendMs: t + random() * g.spread });
          }
          const limiter = new SlidingWindow({ count, intervalMs: Math.max(1, Math.round(windowMs)) });
          const answers = simulate(limiter, sends.sort((a, b) => a.sendMs - b.sendMs), network(net));
          const adm = answers.filter((a) => a.status === 200).map((a) => ({ s: a.sendMs, r: a.recvMs, remaining: a.remaining }));
          expect(maxProvenInWindow(adm, windowMs).admitted).toBeLessThanOrEqual(count);
          expect(maxHeaderExposure(adm, windowMs).exposure).toBeLessThanOrEqual(count);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("under the tool's own traffic at 2x load, with full figures", () => {
    const random = mulberry32(7);
    const windowMs = 10_000 / 60;
    const count = 15;
    const { steady, burst } = toolTraffic({ windowMs, count, rate: 180, durationMs: 6000, burstSize: 30, bursts: 8, random });
    const net: Network = { toGateway: () => 1 + random() * 20, fromGateway: () => 1 + random() * 20, clockOffsetMs: 1234.5 };
    const answers = [
      ...simulate(new SlidingWindow({ count, intervalMs: 167 }), steady, net, "steady"),
      ...simulate(new SlidingWindow({ count, intervalMs: 167 }), burst, net, "burst"),
    ];
    const { verdict, figures } = analyzeRule(
      { count, windowMs, startMs: 0, durationMs: 6000, steady: { offsetMs: 0, durationMs: 6000 }, intendedRate: 180, retrySkipped: "not simulated" },
      answers,
    );
    expect(verdict).toEqual({ pass: true, failures: [] });
    expect(figures.limitReached).toBe(true);
    expect(figures.maxInWindow.admitted).toBeGreaterThan(count / 2);
    expect(figures.steadyUtilization).toBeGreaterThan(0.8);
  });
});

describe("a fixed-window counter is caught", () => {
  const phases = fc.double({ min: 0, max: 1e6, noNaN: true });

  it("by the bursts alone, at any phase of its windows (timing check)", () => {
    fc.assert(
      fc.property(phases, fc.integer({ min: 1, max: 40 }), (clockOffsetMs, count) => {
        const windowMs = 1000;
        const random = mulberry32(Math.floor(clockOffsetMs));
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
        const random = mulberry32(Math.floor(clockOffsetMs) + 1);
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
    const random = mulberry32(11);
    const windowMs = 1000;
    const count = 15;
    const { steady, burst } = toolTraffic({ windowMs, count, rate: 30, durationMs: 6000, burstSize: 30, bursts: 8, random });
    const net: Network = { toGateway: () => 2 + random() * 10, fromGateway: () => 2 + random() * 10, clockOffsetMs: 400 };
    const answers = [
      ...simulate(new FixedWindow({ count, intervalMs: windowMs }), steady, net, "steady"),
      ...simulate(new FixedWindow({ count, intervalMs: windowMs }), burst, net, "burst"),
    ];
    const { verdict, figures } = analyzeRule(
      { count, windowMs, startMs: 0, durationMs: 6000, steady: { offsetMs: 0, durationMs: 6000 }, intendedRate: 30, retrySkipped: "not simulated" },
      answers,
    );
    expect(verdict.pass).toBe(false);
    expect(figures.maxInWindow.admitted).toBeGreaterThan(count);
    expect(verdict.failures.join("\n")).toMatch(/admitted within one window of 1 s \(limit 15\)/);
    expect(verdict.failures.join("\n")).toMatch(/lost count of its window/);
  });
});

describe("errors", () => {
  it("fail the rule and are listed by kind", () => {
    const answers: Answer[] = [
      { kind: "steady", identity: "a", sendMs: 0, recvMs: 5, status: 200, remaining: 1 },
      { kind: "steady", identity: "a", sendMs: 10, recvMs: 15, status: 0, error: "network: ECONNRESET" },
      { kind: "steady", identity: "a", sendMs: 20, recvMs: 25, status: 500, error: "status 500" },
    ];
    const { verdict, figures } = analyzeRule({ count: 2, windowMs: 1000, startMs: 0, durationMs: 1000, steady: { offsetMs: 0, durationMs: 1000 }, intendedRate: 4 }, answers);
    expect(figures.errors).toBe(2);
    expect(verdict.pass).toBe(false);
    expect(verdict.failures.at(-1)).toMatch(/2 error\(s\): .*ECONNRESET x1/);
  });

  it("the tolerance grows with the window (clock rate drift)", () => {
    expect(toleranceMs(0)).toBe(5);
    expect(toleranceMs(60_000)).toBe(65);
  });
});
