import { describe, expect, it } from "vitest";
import { DEFAULTS, parseCli, parseRuleList, USAGE } from "../../../../tools/loadtest/args.ts";
import { refuses } from "../../support/refusals.ts";

const ids = Array.from({ length: 29 }, (_, i) => i + 1);
const parse = (...argv: string[]) => parseCli(argv, ids);
const parseArgv = (argv: string[]) => parseCli(argv, ids);

describe("parseCli", () => {
  it("has defaults for everything", () => {
    expect(parse()).toMatchObject({
      rules: "all",
      region: "us",
      target: undefined,
      timeScale: 1,
      load: DEFAULTS.load,
      windows: DEFAULTS.windows,
      budget: DEFAULTS.budget,
      progress: true,
      wide: false,
      algorithm: "sliding-window",
    });
  });

  it("reads --wide, the summary table past 100 columns, and documents it", () => {
    expect(parse("--wide").wide).toBe(true);
    refuses(parseArgv, ["--wide=yes"], "--wide");
    expect(USAGE).toContain("[--wide]");
    expect(USAGE).toMatch(/^ {2}--wide {9}print the full summary table/m);
  });

  it("reads the documented options", () => {
    const o = parse("--rules", "12,28", "--region", "eu", "--time-scale", "60", "--load", "1.5", "--json", "r.json", "--report", "r.html", "--no-progress");
    expect(o).toMatchObject({ rules: [12, 28], region: "eu", timeScale: 60, load: 1.5, json: "r.json", report: "r.html", progress: false });
    expect(parse("--target", "https://gw.example.com/base").target?.href).toBe("https://gw.example.com/base");
  });

  it("refuses bad values, naming the option", () => {
    refuses(parseArgv, ["--rules", "30"], "--rules");
    refuses(parseArgv, ["--rules", "x"], "--rules");
    refuses(parseArgv, ["--region", "mars"], "--region");
    refuses(parseArgv, ["--time-scale", "0"], "--time-scale");
    refuses(parseArgv, ["--time-scale", "-2"], "--time-scale");
    refuses(parseArgv, ["--time-scale", "abc"], "--time-scale");
    refuses(parseArgv, ["--time-scale", "5000"], "--time-scale");
    refuses(parseArgv, ["--load", "0"], "--load");
    refuses(parseArgv, ["--windows", "1.5"], "--windows");
    refuses(parseArgv, ["--target", "not a url"], "--target");
    refuses(parseArgv, ["--target", "ftp://x"], "--target");
    refuses(parseArgv, ["--limiter-algorithm", "token-bucket"], "--limiter-algorithm");
    refuses(parseArgv, ["--json", ""], "--json");
  });

  it("refuses a time scale other than 1 (and the broken limiter) with --target", () => {
    refuses(parseArgv, ["--target", "http://127.0.0.1:8787", "--time-scale", "60"], "--time-scale");
    expect(parse("--target", "http://127.0.0.1:8787", "--time-scale", "1").timeScale).toBe(1);
    refuses(parseArgv, ["--target", "http://127.0.0.1:8787", "--limiter-algorithm", "fixed-window"], "--limiter-algorithm");
  });

  it("refuses unknown options and missing values through node:util, naming them", () => {
    refuses(parseArgv, ["--rulez", "1"], "--rulez");
    refuses(parseArgv, ["--load"], "--load");
  });
});

describe("parseRuleList", () => {
  it("reads lists and ranges, sorted and distinct", () => {
    expect(parseRuleList("28,12,12", ids)).toEqual([12, 28]);
    expect(parseRuleList("1-3, 9", ids)).toEqual([1, 2, 3, 9]);
  });

  it("refuses backwards ranges and unknown rows", () => {
    expect(() => parseRuleList("5-3", ids)).toThrow(/runs backwards/);
    expect(() => parseRuleList("0", ids)).toThrow(/not a row/);
  });
});

describe("npm run loadtest's refusals", () => {
  it("print one line naming the option and where the help is, and exit 2", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const run = promisify(execFile);
    await expect(run(process.execPath, ["tools/loadtest/main.ts", "--load", "x"])).rejects.toMatchObject({
      code: 2,
      stderr: 'loadtest: --load: "x" is not a number (npm run loadtest -- --help lists every option)\n',
    });
  });

  it("has help with examples", () => {
    expect(USAGE).toMatch(/examples:\n {2}npm run loadtest -- /);
  });
});
