import { describe, expect, it } from "vitest";
import { cpuMs, parseStatTicks } from "../../../../bench/gateway/processes.ts";

describe("parseStatTicks", () => {
  it("adds utime and stime, reading past a command name holding spaces and parentheses", () => {
    // proc(5): pid (comm) state ppid ... utime(14) stime(15) ...
    const stat = "4242 (work (er) d) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 567 0 0 20 0 12 0 100 0 0";
    expect(parseStatTicks(stat)).toBe(1801);
  });
});

describe("cpuMs", () => {
  it("reads this process's CPU time, and nothing for no process", () => {
    expect(cpuMs([process.pid])).toBeGreaterThanOrEqual(0);
    expect(cpuMs([])).toBeUndefined();
  });
});
