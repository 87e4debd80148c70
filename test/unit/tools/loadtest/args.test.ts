import { describe, expect, it } from "vitest";
import { DEFAULTS, parseCli, parseRuleList, USAGE } from "../../../../tools/loadtest/args.ts";
import { refuses } from "../../support/refusals.ts";

const ids = Array.from({ length: 29 }, (_, i) => i + 1);
const parse = (...argv: string[]) => parseCli(argv, ids);
const parseArgv = (argv: string[]) => parseCli(argv, ids);

describe("parseCli", () => {
  it("has defaults for everything", () => {
    const o = parse();
    expect(o).toMatchObject({
      rules: "all",
      regions: ["us"],
      target: undefined,
      timeScale: "auto",
      load: DEFAULTS.load,
      windows: DEFAULTS.windows,
      share: DEFAULTS.share,
      minWindowS: DEFAULTS.minWindowS,
      unjudged: "pass",
      junit: undefined,
      progress: true,
      secondTry: true,
      wide: false,
      algorithm: "sliding-window",
    });
    // Without --budget or --capacity, both come from the measured capacity.
    expect(o).not.toHaveProperty("budget");
    expect(o).not.toHaveProperty("capacity");
    expect(o).not.toHaveProperty("sourceIps");
  });

  it("reads several regions, each once, in the order given", () => {
    expect(parse("--region", "us,eu").regions).toEqual(["us", "eu"]);
    expect(parse("--region", "eu, us,eu").regions).toEqual(["eu", "us"]);
    refuses(parseArgv, ["--region", "us,mars"], "--region");
    refuses(parseArgv, ["--region", "us,,eu"], "--region");
    // A deployed gateway enforces one region's limits.
    refuses(parseArgv, ["--region", "us,eu", "--target", "http://127.0.0.1:18890"], "--region");
  });

  it("reads the time scale as auto (per row) or one number for every row; 1 against --target", () => {
    expect(parse("--time-scale", "auto").timeScale).toBe("auto");
    expect(parse("--time-scale", "0.5").timeScale).toBe(0.5);
    expect(parse("--target", "http://127.0.0.1:18890").timeScale).toBe(1);
    expect(parse("--target", "http://127.0.0.1:18890", "--time-scale", "auto").timeScale).toBe(1);
  });

  it("reads --junit and --unjudged, for CI", () => {
    expect(parse("--junit", "out.xml", "--unjudged", "fail")).toMatchObject({ junit: "out.xml", unjudged: "fail" });
    refuses(parseArgv, ["--junit", ""], "--junit");
    refuses(parseArgv, ["--unjudged", "ignore"], "--unjudged");
    expect(USAGE).toMatch(/^ {2}--junit FILE {3}write a JUnit XML report/m);
    expect(USAGE).toMatch(/^ {2}--unjudged {5}fail: a row left unjudged fails the run/m);
  });

  it("reads --source-ips (IP literals, each once), --capacity, --budget and --port", () => {
    expect(parse("--source-ips", "127.0.0.2, 127.0.0.3,::1,127.0.0.2").sourceIps).toEqual(["127.0.0.2", "127.0.0.3", "::1"]);
    refuses(parseArgv, ["--source-ips", "127.0.0.2,localhost"], "--source-ips");
    refuses(parseArgv, ["--source-ips", ""], "--source-ips");
    expect(parse("--capacity", "900", "--budget", "500", "--port", "18800")).toMatchObject({ capacity: 900, budget: 500, port: 18800 });
    refuses(parseArgv, ["--capacity", "0"], "--capacity");
    refuses(parseArgv, ["--share", "1.5"], "--share");
    refuses(parseArgv, ["--share", "0"], "--share");
    refuses(parseArgv, ["--load", "1"], "--load");
    refuses(parseArgv, ["--min-window", "0"], "--min-window");
    refuses(parseArgv, ["--port", "18800", "--target", "http://127.0.0.1:18890"], "--port");
  });

  it("reads --wide, the summary table past 100 columns, and documents it", () => {
    expect(parse("--wide").wide).toBe(true);
    refuses(parseArgv, ["--wide=yes"], "--wide");
    expect(USAGE).toContain("[--wide]");
    expect(USAGE).toMatch(/^ {2}--wide {9}print the full summary table/m);
  });

  it("reads the documented options", () => {
    const o = parse(
      "--rules",
      "12,28",
      "--region",
      "eu",
      "--time-scale",
      "60",
      "--load",
      "1.5",
      "--json",
      "r.json",
      "--report",
      "r.html",
      "--no-progress",
      "--no-second-try",
    );
    expect(o).toMatchObject({
      rules: [12, 28],
      regions: ["eu"],
      timeScale: 60,
      load: 1.5,
      json: "r.json",
      report: "r.html",
      progress: false,
      secondTry: false,
    });
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
