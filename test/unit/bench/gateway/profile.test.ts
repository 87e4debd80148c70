// bench:profile's pure parts: the profile reduced to self and total time, its arguments, and
// which inspector target is the profiled Worker's.
import { describe, expect, it } from "vitest";
import { summarizeProfile, topFunctions, type CpuProfile, type ProfileNode } from "../../../../bench/gateway/cpu-profile.ts";
import { targetOf } from "../../../../bench/gateway/inspector.ts";
import { parseProfileArgs, parseShape } from "../../../../bench/gateway/profile-args.ts";
import { BadArgument } from "../../../../tools/kit/args.ts";

const frame = (functionName: string, url = "index.js", lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });

/** root -> handler -> (hash, handler -> hash: recursion through the handler), plus idle and GC. */
function profile(): CpuProfile {
  const nodes: ProfileNode[] = [
    { id: 1, callFrame: frame("(root)", ""), children: [2, 5, 6] },
    { id: 2, callFrame: frame("handler", "index.js", 10), children: [3, 4] },
    { id: 3, callFrame: frame("hash", "index.js", 20) },
    { id: 4, callFrame: frame("handler", "index.js", 10), children: [7] },
    { id: 5, callFrame: frame("(idle)", "") },
    { id: 6, callFrame: frame("(garbage collector)", "") },
    { id: 7, callFrame: frame("hash", "index.js", 20) },
  ];
  // Every sample lasts 100 us (the delta after it), but one is followed by a 10 ms gap.
  const samples = [2, 3, 3, 7, 5, 6, 2];
  const timeDeltas = [0, 100, 100, 100, 100, 10_000, 100];
  return { nodes, startTime: 0, endTime: 10_500, samples, timeDeltas };
}

describe("summarizeProfile", () => {
  it("gives self time per function, total time counted once however deep it recurses, and idle apart", () => {
    const summary = summarizeProfile(profile(), 100);
    const fn = (name: string) => summary.functions.find((f) => f.name === name)!;
    // handler: samples 2 (twice, one the last: one interval) self; total adds the 3 hash samples once.
    expect(fn("handler").selfMs).toBeCloseTo(0.2);
    expect(fn("handler").totalMs).toBeCloseTo(0.5);
    expect(fn("hash").selfMs).toBeCloseTo(0.3);
    expect(fn("hash").totalMs).toBeCloseTo(0.3);
    // The idle sample is followed by the gap: four intervals of it are idle time.
    expect(summary.idleMs).toBeCloseTo(0.4);
    expect(summary.functions.some((f) => f.name === "(idle)" || f.name === "(root)")).toBe(false);
  });

  it("charges a gap between samples to nobody past four intervals: the isolate was not running", () => {
    const summary = summarizeProfile(profile(), 100);
    // The sample before the 10 ms gap (idle, node 5) gets 4 intervals; the rest is unsampled.
    expect(summary.unsampledMs).toBeCloseTo(10 - 0.4);
    // Every delta after the first, and one interval for the last sample.
    expect(summary.sampledMs + summary.unsampledMs).toBeCloseTo(10.5 + 0.1);
    expect(summary.busyMs).toBeCloseTo(summary.sampledMs - summary.idleMs);
  });

  it("names frames by the source map's origin when it knows them, and adds self time up per file", () => {
    const origin = (f: { functionName: string }) => (f.functionName === "hash" ? { file: "src/core/rules/identity.ts", line: 7 } : undefined);
    const summary = summarizeProfile(profile(), 100, origin);
    expect(summary.functions.find((f) => f.name === "hash")!.where).toBe("src/core/rules/identity.ts:7");
    expect(summary.functions.find((f) => f.name === "handler")!.where).toBe("index.js:11");
    expect(summary.files[0]).toMatchObject({ file: "src/core/rules/identity.ts" });
    expect(summary.files.find((f) => f.file === "src/core/rules/identity.ts")!.selfMs).toBeCloseTo(0.3);
  });

  it("lists the top functions by self and by total time", () => {
    const { bySelf, byTotal } = topFunctions(summarizeProfile(profile(), 100), 2);
    expect(bySelf.map((f) => f.name)).toEqual(["hash", "handler"]);
    expect(byTotal.map((f) => f.name)).toEqual(["handler", "hash"]);
  });
});

describe("bench:profile arguments", () => {
  it("profile the gateway's warm keys by default, to a file named after them", () => {
    const options = parseProfileArgs([]);
    expect(options).toMatchObject({ shape: "warm-keys", target: "gateway", until: "last-answer", top: 30, inspectorPort: 9100 });
    expect(options.out).toMatch(/tollgate-gateway-warm-keys\.cpuprofile$/);
  });

  it("take a shape by number or name, and refuse anything else naming the option", () => {
    expect(parseShape("4")).toBe("deny-flood");
    expect(parseShape("new-ips")).toBe("new-ips");
    expect(() => parseShape("7")).toThrow(BadArgument);
    expect(() => parseProfileArgs(["--shape", "warm"])).toThrow(/^--shape/);
    expect(() => parseProfileArgs(["--target", "peer"])).toThrow(/^--target/);
    expect(() => parseProfileArgs(["--out", ""])).toThrow(/^--out/);
    expect(parseProfileArgs(["--target", "bare", "--out", "/tmp/x.cpuprofile", "--until", "quiet"])).toMatchObject({
      target: "bare",
      out: "/tmp/x.cpuprofile",
      until: "quiet",
    });
  });
});

describe("targetOf", () => {
  const targets = [
    { id: "core:user:tollgate-us-echo", title: "", webSocketDebuggerUrl: "ws://127.0.0.1:9100/core:user:tollgate-us-echo" },
    { id: "core:user:tollgate-us", title: "", webSocketDebuggerUrl: "ws://127.0.0.1:9100/core:user:tollgate-us" },
  ];
  it("finds the Worker's own target, never one whose name merely starts the same", () => {
    expect(targetOf(targets, "tollgate-us").id).toBe("core:user:tollgate-us");
    expect(() => targetOf(targets, "tollgate")).toThrow(/no inspector target for the Worker "tollgate"/);
  });
});
