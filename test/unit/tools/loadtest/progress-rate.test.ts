// The live line's rate comes from the run's own counts (answered / elapsed) on a fake clock: it
// must agree with the counts printed beside it whatever the redraw timing, the defect being a
// "2/s" printed beside counts that implied 13/s.
import { afterEach, describe, expect, it, vi } from "vitest";
import { answeredRate, formatRate, runLine } from "../../../../tools/loadtest/live-rate.ts";
import type { Plan } from "../../../../tools/loadtest/plan.ts";
import { startDisplay } from "../../../../tools/loadtest/progress.ts";
import type { Progress } from "../../../../tools/loadtest/runner.ts";

/** A run's progress read against a fake clock the test moves. */
function fakeRun(totalMs: number) {
  const clock = { ms: 0 };
  const progress: Progress = {
    totalMs,
    get elapsedMs() {
      return clock.ms;
    },
    sent: 0,
    admitted: 0,
    denied: 0,
    errors: 0,
    inFlight: 0,
    rules: [
      { key: "us:28", id: 28, name: "runs-search-user", sent: 0, admitted: 0, denied: 0, errors: 0, skipped: 0, startMs: 0, endMs: totalMs / 2 },
      { key: "us:12", id: 12, name: "runs-query-key", sent: 0, admitted: 0, denied: 0, errors: 0, skipped: 0, startMs: totalMs / 2, endMs: totalMs },
    ],
  };
  /** Answers `n` requests spread evenly over the next `ms`, every third one denied, two left open. */
  const answer = (n: number, ms: number) => {
    for (let k = 0; k < n; k++) {
      clock.ms += ms / n;
      progress.sent++;
      if (k % 3 === 2) progress.denied++;
      else progress.admitted++;
    }
    // Whole milliseconds, as the floating steps add up a hair short.
    clock.ms = Math.round(clock.ms);
  };
  return { clock, progress, answer };
}

const rateIn = (line: string) => Number(/ ([\d.]+)\/s answered/.exec(line)![1]);

describe("the live rate", () => {
  it("is the answered count over the elapsed time, as the line's own counts imply", () => {
    const { clock, progress, answer } = fakeRun(60_000);
    answer(13 * 12, 12_000);
    expect(clock.ms).toBeCloseTo(12_000);
    const line = runLine(progress, 60);
    expect(line).toBe("12/60 s 13/s answered, 0 open; admitted 104 denied 52 err 0; 0/2 rules done");
    expect(rateIn(line)).toBeCloseTo((progress.admitted + progress.denied + progress.errors) / (progress.elapsedMs / 1000), 0);
  });

  it("counts errors as answered and leaves open requests out", () => {
    const { clock, progress } = fakeRun(10_000);
    clock.ms = 4_000;
    Object.assign(progress, { sent: 30, admitted: 10, denied: 6, errors: 4, inFlight: 10 });
    expect(answeredRate(progress)).toBe(5);
    expect(runLine(progress, 10)).toBe("4/10 s 5/s answered, 10 open; admitted 10 denied 6 err 4; 0/2 rules done");
  });

  it("does not swing with the redraw timing: bursts and pauses average out as the counts do", () => {
    const { clock, progress, answer } = fakeRun(60_000);
    const seen: number[] = [];
    for (let s = 0; s < 20; s++) {
      // 13 answers in the first half of each second, none in the second half: 13/s on average.
      answer(13, 500);
      seen.push(answeredRate(progress));
      clock.ms += 500;
      seen.push(answeredRate(progress));
    }
    expect(rateIn(runLine(progress, 60))).toBe(13);
    // After the first seconds it stays near 13/s, never the 2/s or 4/s of a rate over the last redraw.
    for (const r of seen.slice(4)) expect(r).toBeGreaterThan(12);
    for (const r of seen.slice(4)) expect(r).toBeLessThan(18);
  });

  it("reads 0 before a tenth of a second and keeps a decimal under 10/s", () => {
    const { clock, progress } = fakeRun(10_000);
    progress.admitted = 1;
    clock.ms = 50;
    expect(answeredRate(progress)).toBe(0);
    clock.ms = 2_000;
    expect(formatRate(answeredRate(progress))).toBe("0.5");
    expect(formatRate(12.6)).toBe("13");
    expect(formatRate(3)).toBe("3");
  });
});

describe("the live display", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("prints the answered rate off a terminal, from the run's counts on the fake clock", () => {
    vi.useFakeTimers();
    const { progress, answer } = fakeRun(60_000);
    const written: string[] = [];
    const stream = {
      isTTY: false,
      write: (chunk: string) => (written.push(String(chunk)), true),
      on: () => stream,
      removeListener: () => stream,
    } as unknown as NodeJS.WriteStream;
    const display = startDisplay({ durationMs: 60_000 } as Plan, progress, stream);
    answer(13 * 30, 30_000);
    vi.advanceTimersByTime(30_000);
    display.stop();
    const lines = written
      .join("")
      .split("\n")
      .filter((l) => l.includes("/s answered"));
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.at(-1)).toContain("30/60 s 13/s answered, 0 open; admitted 260 denied 130 err 0; 1/2 rules done");
    for (const l of lines) expect(l).not.toMatch(/ [24]\/s /);
  });
});
