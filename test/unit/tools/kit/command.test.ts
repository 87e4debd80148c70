import { describe, expect, it } from "vitest";
import { BadArgument, numberOption, parseOptions } from "../../../../tools/kit/args.ts";
import { CouldNotRun, runCommand, type MeasuringCommand } from "../../../../tools/kit/command.ts";
import { runVerdict } from "../../../../tools/kit/verdict.ts";

interface Options {
  readonly n: number;
  readonly help: boolean;
}

/** A command whose run is given by the test and whose report prints the result and fails on a negative one. */
function command(run: (o: Options) => Promise<number>): MeasuringCommand<Options, number> {
  return {
    tool: "bench:test",
    usage: "usage: npm run bench:test -- [--n N]",
    parse: (argv) => {
      const { values } = parseOptions(argv, { n: { type: "string" }, help: { type: "boolean", short: "h" } });
      return { n: numberOption("n", values.n, 1), help: values.help ?? false };
    },
    run,
    report: (result) => {
      lines.out.push(`result ${result}`);
      return runVerdict(result < 0);
    },
  };
}

/** A command whose run throws `error`. */
const throwing = (error: Error) =>
  command(async () => {
    throw error;
  });

let lines: { out: string[]; err: string[] };
const output = () => {
  lines = { out: [], err: [] };
  return { out: (l: string) => lines.out.push(l), err: (l: string) => lines.err.push(l) };
};

describe("runCommand", () => {
  it("runs, reports, and exits 0 on PASS and 1 on FAIL", async () => {
    expect(
      await runCommand(
        command(async (o) => o.n),
        ["--n", "5"],
        output(),
      ),
    ).toBe(0);
    expect(lines).toEqual({ out: ["result 5"], err: [] });
    expect(
      await runCommand(
        command(async () => -1),
        [],
        output(),
      ),
    ).toBe(1);
    expect(lines.out).toEqual(["result -1"]);
  });

  it("answers --help with the usage and runs nothing", async () => {
    let ran = false;
    expect(
      await runCommand(
        command(async () => {
          ran = true;
          return 0;
        }),
        ["-h"],
        output(),
      ),
    ).toBe(0);
    expect(lines.out).toEqual(["usage: npm run bench:test -- [--n N]"]);
    expect(ran).toBe(false);
  });

  it("refuses a bad argument, from the parser or from the run, in one line on stderr, exit 2", async () => {
    expect(
      await runCommand(
        command(async () => 0),
        ["--n", "x"],
        output(),
      ),
    ).toBe(2);
    expect(lines).toEqual({ out: [], err: ['bench:test: --n: "x" is not a number (npm run bench:test -- --help lists every option)'] });
    expect(await runCommand(throwing(new BadArgument("--region: the gateway enforces another limit")), [], output())).toBe(2);
    expect(lines.err).toEqual(["bench:test: --region: the gateway enforces another limit (npm run bench:test -- --help lists every option)"]);
  });

  it("exits 3 when the run could not be made: the reason alone for CouldNotRun, the stack for anything else", async () => {
    expect(await runCommand(throwing(new CouldNotRun("the gateway did not start: port taken")), [], output())).toBe(3);
    expect(lines).toEqual({ out: [], err: ["bench:test: could not run: the gateway did not start: port taken"] });
    expect(await runCommand(throwing(new TypeError("undefined is not a function")), [], output())).toBe(3);
    expect(lines.err[0]).toMatch(/^bench:test: could not run: TypeError: undefined is not a function\n\s+at /);
  });
});
