// Hand-made timelines: each request is [sent, received] on the client's clock.
import { describe, expect, it } from "vitest";
import { analyze, isEarly429, isOverAdmission, limitsPossibleIn, type Observation, type Timeline } from "../../../../bench/accuracy/analysis.ts";
import { admitted, refused } from "./observations.ts";

const limit = { count: 3, intervalMs: 1000 };
const timeline = (observations: Observation[], extra: Partial<Timeline> = {}): Timeline => ({ limit, observations, isolates: 1, ...extra });

describe("analyze", () => {
  it("finds nothing wrong in an exact run: count admitted, then a 429, its retry admitted", () => {
    const f = analyze(timeline([admitted(0, 10), admitted(20, 30), admitted(40, 50), refused(60, 70), admitted(1070, 1080, { retryOf: 3, cleanRetry: true })]));
    expect(f).toMatchObject({
      requests: 5,
      admitted: 4,
      denied: 1,
      admittedInFirstWindow: 3,
      first429At: 4,
      first429RetryAfterMs: 1000,
      fullestWindow: 3,
      overAdmissions: 0,
      early429s: 0,
      retriesJudged: 1,
      retriesHonoured: 1,
    });
  });

  it("flags an admission with count others certainly before it in its window", () => {
    const f = analyze(timeline([admitted(0, 10), admitted(20, 30), admitted(40, 50), admitted(60, 70)]));
    expect(f.overAdmissions).toBe(1);
    expect(f.fullestWindow).toBe(4);
  });

  it("flags a 429 while fewer than count admissions could be in its window", () => {
    const f = analyze(timeline([admitted(0, 10), admitted(20, 30), refused(40, 50)]));
    expect(f.early429s).toBe(1);
    expect(f.first429At).toBe(3);
  });

  it("does not flag what latency blurs: overlapping requests, or an admission that may have left the window", () => {
    // The fourth admission overlaps the third: the third may have been decided after it.
    expect(analyze(timeline([admitted(0, 10), admitted(20, 30), admitted(40, 100), admitted(60, 120)])).overAdmissions).toBe(0);
    // The first admission (decided by 10) may be out of the window of one decided at 1015.
    expect(analyze(timeline([admitted(0, 10), admitted(20, 30), admitted(40, 50), admitted(900, 1015)])).overAdmissions).toBe(0);
    // The 429 may have been decided at 1005, while the admission decided at 10 was still in.
    expect(analyze(timeline([admitted(0, 10), admitted(20, 30), admitted(40, 50), refused(1005, 1015)])).early429s).toBe(0);
    // A 429 overlapping an admission: that admission may have come first.
    expect(analyze(timeline([admitted(0, 10), admitted(20, 30), admitted(40, 80), refused(60, 70)])).early429s).toBe(0);
  });

  it("judges a retry only when nothing else could have spent the room, and says when it was refused", () => {
    const f = analyze(
      timeline([
        admitted(0, 10),
        admitted(20, 30),
        admitted(40, 50),
        refused(60, 70),
        refused(1070, 1080, { retryOf: 3, cleanRetry: true }),
        admitted(2000, 2010, { retryOf: 4, cleanRetry: false }),
      ]),
    );
    expect(f.retriesJudged).toBe(1);
    expect(f.retriesHonoured).toBe(0);
  });

  it("judges decisions against the limit in force, and both limits while a change settles", () => {
    const change = { sentAt: 100, settledBy: 200, limit: { count: 4, intervalMs: 1000 } };
    const base = [admitted(0, 10), admitted(20, 30), admitted(40, 50)];
    // Under 3 the third was the last; from the change on, 4 apply.
    expect(analyze(timeline([...base, admitted(300, 310)], { changes: [change] })).overAdmissions).toBe(0);
    expect(analyze(timeline([...base, admitted(300, 310), admitted(320, 330)], { changes: [change] })).overAdmissions).toBe(1);
    // While it settles either limit may apply: over only if over under both.
    expect(analyze(timeline([...base, admitted(150, 160)], { changes: [change] })).overAdmissions).toBe(0);
    expect(analyze(timeline([...base, admitted(150, 160)])).overAdmissions).toBe(1);
    // A lowered limit: a 429 with 3 admissions in the window is on time under 2, early under 3.
    const lower = { sentAt: 60, settledBy: 70, limit: { count: 2, intervalMs: 1000 } };
    expect(analyze(timeline([admitted(0, 10), admitted(20, 30), refused(100, 110)], { changes: [lower] })).early429s).toBe(0);
    expect(analyze(timeline([admitted(0, 10), admitted(20, 30), refused(100, 110)])).early429s).toBe(1);
  });

  it("holds local decisions in a declared outage to the outage's bound, per isolate, not to the window", () => {
    const local = (isolate: number, t: number) => admitted(t, t + 5, { isolate, localFallback: true });
    const f = analyze({
      limit,
      isolates: 2,
      outages: [{ from: 100, to: 500 }],
      observations: [
        admitted(0, 10),
        local(0, 110),
        local(0, 120),
        local(1, 130),
        local(1, 140),
        local(1, 150),
        refused(160, 170, { isolate: 1, localFallback: true }),
      ],
    });
    expect(f).toMatchObject({ overAdmissions: 0, early429s: 0, localAdmitted: 5, localFullestPerIsolate: 3, outageFullestWindow: 6 });
  });
});

describe("the judgements one by one", () => {
  const t = { limit };
  it("limitsPossibleIn: the old limit until the change settles, the new one from when it was sent", () => {
    const changes = [{ sentAt: 100, settledBy: 200, limit: { count: 9, intervalMs: 1000 } }];
    expect(limitsPossibleIn({ limit, changes }, 0, 50)).toEqual([limit]);
    expect(limitsPossibleIn({ limit, changes }, 150, 160)).toEqual([limit, changes[0]!.limit]);
    expect(limitsPossibleIn({ limit, changes }, 250, 260)).toEqual([changes[0]!.limit]);
  });

  it("an admission is never over on admissions that only may be in its window", () => {
    const a = admitted(60, 70);
    expect(isOverAdmission(a, [admitted(0, 10), admitted(20, 30), admitted(40, 50), a], t)).toBe(true);
    expect(isOverAdmission(a, [admitted(-940, 10), admitted(20, 30), admitted(40, 50), a], t)).toBe(false);
  });

  it("a 429 is early only when even the admissions that may be in its window are too few", () => {
    const d = refused(60, 70);
    expect(isEarly429(d, [admitted(0, 10), admitted(20, 30)], t)).toBe(true);
    expect(isEarly429(d, [admitted(0, 10), admitted(20, 30), admitted(65, 80)], t)).toBe(false);
  });
});
