import { describe, expect, it } from "vitest";
import { DEFAULTS, parseBenchArgs, parseShapes, parseTargets, USAGE } from "../../../../bench/gateway/args.ts";
import { SHAPE_NAMES } from "../../../../bench/gateway/shape-names.ts";
import { refuses } from "../../support/refusals.ts";

describe("parseBenchArgs", () => {
  it("has a default for everything: three rounds, every target and shape, Miniflare, pinned", () => {
    expect(parseBenchArgs([])).toEqual({
      ...DEFAULTS,
      targets: ["bare", "gateway", "peer"],
      shapes: [...SHAPE_NAMES],
      instructions: false,
      pin: true,
      json: false,
      help: false,
    });
  });

  it("reads every option", () => {
    const options = parseBenchArgs([
      "--rounds",
      "5",
      "--serving",
      "wrangler-dev",
      "--storage",
      "tmpdir",
      "--targets",
      "gateway",
      "--shapes",
      "1-2,6",
      "--keys",
      "50",
      "--warm-passes",
      "2",
      "--requests",
      "100",
      "--burst-factor",
      "4",
      "--connections",
      "8",
      "--warmup",
      "0",
      "--instructions",
      "--no-pin",
      "--json",
    ]);
    expect(options).toEqual({
      rounds: 5,
      serving: "wrangler-dev",
      storage: "tmpdir",
      targets: ["bare", "gateway"],
      shapes: ["new-keys", "warm-keys", "hot-key"],
      keys: 50,
      warmPasses: 2,
      requests: 100,
      burstFactor: 4,
      connections: 8,
      warmup: 0,
      instructions: true,
      pin: false,
      json: true,
      help: false,
    });
  });

  it("answers --help and -h, and the help has examples", () => {
    expect(parseBenchArgs(["--help"]).help).toBe(true);
    expect(parseBenchArgs(["-h"]).help).toBe(true);
    expect(USAGE).toContain("examples:");
    expect(USAGE).toContain("npm run bench:gateway -- --rounds 5");
  });

  it("refuses numbers that are not whole, not numbers, or out of range, naming the option", () => {
    refuses(parseBenchArgs, ["--rounds", "0"], "--rounds");
    refuses(parseBenchArgs, ["--rounds", "two"], "--rounds");
    refuses(parseBenchArgs, ["--rounds", ""], "--rounds");
    refuses(parseBenchArgs, ["--keys", "1.5"], "--keys");
    refuses(parseBenchArgs, ["--connections", "0"], "--connections");
    refuses(parseBenchArgs, ["--burst-factor", "1"], "--burst-factor");
  });

  it("refuses sizes that would turn a shape's admissions into denials", () => {
    // Row 11 allows 6000 per 10 s to one key; row 16 10000 per 60 s (one new + the warm passes).
    expect(parseBenchArgs(["--requests", "6000"]).requests).toBe(6000);
    refuses(parseBenchArgs, ["--requests", "6001"], "--requests");
    expect(parseBenchArgs(["--warm-passes", "9999"]).warmPasses).toBe(9999);
    refuses(parseBenchArgs, ["--warm-passes", "10000"], "--warm-passes");
  });

  it("keeps Durable Object storage in RAM unless told otherwise", () => {
    expect(parseBenchArgs([]).storage).toBe("ram");
    expect(parseBenchArgs(["--storage", "tmpdir"]).storage).toBe("tmpdir");
    expect(USAGE).toContain("--storage S");
  });

  it("refuses an unknown serving, storage, option or value where none is taken", () => {
    refuses(parseBenchArgs, ["--serving", "docker"], "--serving");
    refuses(parseBenchArgs, ["--storage", "ssd"], "--storage");
    refuses(parseBenchArgs, ["--fast"], "--fast");
    refuses(parseBenchArgs, ["--json=yes"], "--json");
    refuses(parseBenchArgs, ["--rounds"], "--rounds");
  });
});

describe("--before", () => {
  it("keeps the revision and adds the before target", () => {
    const options = parseBenchArgs(["--before", " dfbde3a ", "--targets", "gateway"]);
    expect(options.before).toBe("dfbde3a");
    expect(options.targets).toEqual(["bare", "gateway", "before"]);
    expect(parseBenchArgs([])).not.toHaveProperty("before");
  });

  it("refuses an empty revision", () => {
    refuses(parseBenchArgs, ["--before", " "], "--before");
  });
});

describe("parseTargets", () => {
  it("always runs the bare Worker, the baseline, and keeps the run order", () => {
    expect(parseTargets("peer,gateway")).toEqual(["bare", "gateway", "peer"]);
    expect(parseTargets("bare")).toEqual(["bare"]);
  });

  it("refuses an unknown target", () => {
    expect(() => parseTargets("gateway,envoy")).toThrow(/^--targets: "envoy"/);
  });

  it("runs the gateway at the --before revision exactly when one is given, in its place beside the gateway", () => {
    expect(parseTargets(undefined, true)).toEqual(["bare", "gateway", "before", "peer"]);
    expect(parseTargets("gateway", true)).toEqual(["bare", "gateway", "before"]);
    expect(() => parseTargets("gateway,before")).toThrow(/^--targets: "before" is the gateway at the --before revision; give --before REV/);
  });
});

describe("parseShapes", () => {
  it("reads numbers, ranges and all", () => {
    expect(parseShapes("all")).toEqual([...SHAPE_NAMES]);
    expect(parseShapes("6,1, 3-4")).toEqual(["new-keys", "one-key", "deny-flood", "hot-key"]);
  });

  it("refuses shape 2 without shape 1: warm keys are shape 1's keys", () => {
    expect(() => parseShapes("2")).toThrow(/^--shapes: shape 2/);
  });

  it("refuses what is not a shape", () => {
    expect(() => parseShapes("7")).toThrow(/^--shapes: 7 is not a shape/);
    expect(() => parseShapes("4-3")).toThrow(/runs backwards/);
    expect(() => parseShapes("one")).toThrow(/^--shapes: "one"/);
  });
});
