import { describe, expect, it } from "vitest";
import { cpuNs, parseSchedstatNs } from "../../../../bench/relay/cpu.ts";
import { parseVmRss, rssBytes } from "../../../../bench/relay/memory.ts";

describe("parseVmRss", () => {
  it("reads VmRSS in bytes from a /proc status text", () => {
    expect(parseVmRss("Name:\tworkerd\nVmHWM:\t  120000 kB\nVmRSS:\t   81940 kB\nRssAnon:\t 50000 kB\n")).toBe(81_940 * 1024);
    expect(parseVmRss("Name:\tzombie\n")).toBeUndefined();
  });

  it("reads this process's memory, and nothing for no process", () => {
    expect(rssBytes([process.pid])).toBeGreaterThan(0);
    expect(rssBytes([])).toBeUndefined();
  });
});

describe("parseSchedstatNs", () => {
  it("is the first field: nanoseconds on a CPU", () => {
    expect(parseSchedstatNs("97384953 53725673 358\n")).toBe(97_384_953);
    expect(parseSchedstatNs("")).toBeUndefined();
    expect(parseSchedstatNs("x 1 2")).toBeUndefined();
  });

  it("adds up this process's threads, and nothing for no process", () => {
    expect(cpuNs([process.pid])).toBeGreaterThan(0);
    expect(cpuNs([])).toBeUndefined();
  });
});
