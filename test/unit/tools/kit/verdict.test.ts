import { describe, expect, it } from "vitest";
import { EXIT, exitStatusOf, exitStatusText, runVerdict } from "../../../../tools/kit/verdict.ts";

describe("the run's verdict", () => {
  it("is FAIL when a check failed, and exits 1 then, 0 on PASS", () => {
    expect(runVerdict(false)).toBe("PASS");
    expect(runVerdict(true)).toBe("FAIL");
    expect(exitStatusOf("PASS")).toBe(0);
    expect(exitStatusOf("FAIL")).toBe(1);
    expect(EXIT).toEqual({ pass: 0, fail: 1, badArguments: 2, couldNotRun: 3 });
  });

  it("has one exit status paragraph for every command, in order, within 100 columns", () => {
    const text = exitStatusText({
      pass: "every rule held",
      fail: "a rule failed and this reason is long enough to need a second line of text",
      couldNotRun: "the gateway did not start",
    });
    expect(text.replace(/\n/g, " ")).toBe(
      "exit status: 0 every rule held; 1 a rule failed and this reason is long enough to need a second line of text; 2 bad arguments; 3 the gateway did not start",
    );
    expect(text.split("\n").length).toBeGreaterThan(1);
    expect(text.split("\n").every((l) => l.length <= 100 && !l.startsWith(" "))).toBe(true);
  });
});
