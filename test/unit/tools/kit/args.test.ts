import { describe, expect, it } from "vitest";
import { BadArgument, choiceOption, fileOption, numberedList, numberOption, parseOptions, refusal, WHOLE_FROM_1 } from "../../../../tools/kit/args.ts";
import { refusalOf } from "../../support/refusals.ts";

describe("parseOptions", () => {
  it("reads declared options and refuses unknown ones and missing values as BadArgument, first line only", () => {
    const options = { load: { type: "string" }, wide: { type: "boolean" } } as const;
    expect(parseOptions(["--load", "2", "--wide"], options).values).toEqual({ load: "2", wide: true });
    expect(refusalOf(() => parseOptions(["--lod", "2"], options))).toMatch(/^Unknown option '--lod'/);
    expect(refusalOf(() => parseOptions(["--load"], options))).toMatch(/'--load/);
    expect(refusalOf(() => parseOptions(["--lod"], options))).not.toContain("\n");
    expect(refusalOf(() => parseOptions(["extra"], options))).toMatch(/extra/);
    expect(parseOptions(["us"], options, true).positionals).toEqual(["us"]);
  });
});

describe("refusal", () => {
  it("is one line: the tool, the message, where the help is", () => {
    expect(refusal("bench:gateway", new BadArgument("--rounds: must be at least 1 (got 0)"))).toBe(
      "bench:gateway: --rounds: must be at least 1 (got 0) (npm run bench:gateway -- --help lists every option)",
    );
  });
});

describe("numberOption", () => {
  it("gives the fallback when absent and the number when within bounds", () => {
    expect(numberOption("load", undefined, 2)).toBe(2);
    expect(numberOption("load", "1.5", 2)).toBe(1.5);
    expect(numberOption("warmup", "0", 300, { integer: true, min: 0, max: 10 })).toBe(0);
    expect(numberOption("rounds", "100", 3, { integer: true, min: 1, max: 100 })).toBe(100);
  });

  it("refuses, naming the option and the bound broken", () => {
    expect(refusalOf(() => numberOption("load", "x", 2))).toBe('--load: "x" is not a number');
    expect(refusalOf(() => numberOption("load", " ", 2))).toBe('--load: " " is not a number');
    expect(refusalOf(() => numberOption("load", "Infinity", 2))).toBe('--load: "Infinity" is not a number');
    expect(refusalOf(() => numberOption("windows", "1.5", 3, { integer: true, min: 2 }))).toBe('--windows: "1.5" must be a whole number');
    expect(refusalOf(() => numberOption("load", "0", 2))).toBe("--load: must be greater than 0 (got 0)");
    expect(refusalOf(() => numberOption("windows", "1", 3, { min: 2 }))).toBe("--windows: must be at least 2 (got 1)");
    expect(refusalOf(() => numberOption("time-scale", "3601", 1, { max: 3600 }))).toBe("--time-scale: must be at most 3600 (got 3601)");
  });

  it("takes counts (requests, rounds) as whole numbers from 1", () => {
    expect(numberOption("rounds", "1", 3, WHOLE_FROM_1)).toBe(1);
    expect(refusalOf(() => numberOption("rounds", "0", 3, WHOLE_FROM_1))).toBe("--rounds: must be at least 1 (got 0)");
    expect(refusalOf(() => numberOption("rounds", "2.5", 3, WHOLE_FROM_1))).toBe('--rounds: "2.5" must be a whole number');
  });
});

describe("choiceOption", () => {
  it("gives the fallback when absent, a member as given, and refuses anything else listing the choices", () => {
    const regions = ["us", "eu"] as const;
    expect(choiceOption("region", undefined, "us", regions)).toBe("us");
    expect(choiceOption("region", "eu", "us", regions)).toBe("eu");
    expect(refusalOf(() => choiceOption("region", "mars", "us", regions))).toBe('--region: must be one of us, eu (got "mars")');
    expect(refusalOf(() => choiceOption("region", "", "us", regions))).toBe('--region: must be one of us, eu (got "")');
  });
});

describe("fileOption", () => {
  it("passes a name or its absence through and refuses an empty name", () => {
    expect(fileOption("json", undefined)).toBeUndefined();
    expect(fileOption("json", "out/r.json")).toBe("out/r.json");
    expect(refusalOf(() => fileOption("json", " "))).toBe("--json: needs a file name");
  });
});

describe("numberedList", () => {
  const upTo6 = { noun: "shape number (1-6)", example: "1-4", unknown: (n: number) => (n >= 1 && n <= 6 ? undefined : `${n} is not a shape (1-6)`) };

  it("reads numbers and ranges, sorted and distinct", () => {
    expect(numberedList("shapes", "6,1, 3-4,3", upTo6)).toEqual([1, 3, 4, 6]);
    expect(numberedList("shapes", "2-2", upTo6)).toEqual([2]);
  });

  it("refuses a part that is no number or range, a backward range, and a number not in the list", () => {
    expect(refusalOf(() => numberedList("shapes", "one", upTo6))).toBe('--shapes: "one" is not a shape number (1-6), a range like 1-4, or all');
    expect(refusalOf(() => numberedList("shapes", "1,", upTo6))).toBe('--shapes: "" is not a shape number (1-6), a range like 1-4, or all');
    expect(refusalOf(() => numberedList("shapes", "4-3", upTo6))).toBe('--shapes: range "4-3" runs backwards');
    expect(refusalOf(() => numberedList("shapes", "5-7", upTo6))).toBe("--shapes: 7 is not a shape (1-6)");
  });
});
