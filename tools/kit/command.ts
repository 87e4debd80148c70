// The life of a measuring command (the load test, the benches): arguments read, --help answered,
// the run made, its report printed, and the exit status that says which of those went wrong.
import { BadArgument, refusal } from "./args.ts";
import { EXIT, exitStatusOf, type ExitStatus, type RunVerdict } from "./verdict.ts";

/**
 * The run could not be made: a gateway did not start or did not answer as one. Its message says
 * why, in the tool's words; the command prints it and exits 3.
 */
export class CouldNotRun extends Error {
  override name = "CouldNotRun";
}

export interface MeasuringCommand<O extends { readonly help?: boolean }, R> {
  /** The npm script's name: "loadtest", "bench:gateway". */
  readonly tool: string;
  readonly usage: string;
  /** @throws BadArgument naming the option */
  readonly parse: (argv: readonly string[]) => O;
  /**
   * Makes the run. A BadArgument it throws is refused like the parser's (the gateway can show an
   * option wrong only once it answers); anything else it throws means it could not run.
   */
  readonly run: (options: O) => Promise<R>;
  /** Prints the results and says whether they pass. */
  readonly report: (result: R, options: O) => Promise<RunVerdict> | RunVerdict;
}

/** Where a command's lines go: the report to stdout, refusals and failures to stderr. */
export interface CommandOutput {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const CONSOLE: CommandOutput = { out: (line) => console.log(line), err: (line) => console.error(line) };

/** Runs the command over `argv` and returns the exit status (EXIT) for the caller to end with. */
export async function runCommand<O extends { readonly help?: boolean }, R>(
  command: MeasuringCommand<O, R>,
  argv: readonly string[],
  output: CommandOutput = CONSOLE,
): Promise<ExitStatus> {
  const { tool } = command;
  let options: O;
  let result: R;
  try {
    options = command.parse(argv);
    if (options.help) {
      output.out(command.usage);
      return EXIT.pass;
    }
    result = await command.run(options);
  } catch (error) {
    if (error instanceof BadArgument) {
      output.err(refusal(tool, error));
      return EXIT.badArguments;
    }
    // A CouldNotRun says why in its message; anything else is unforeseen, and its stack shows where.
    const why = error instanceof CouldNotRun ? error.message : error instanceof Error ? (error.stack ?? error.message) : String(error);
    output.err(`${tool}: could not run: ${why}`);
    return EXIT.couldNotRun;
  }
  return exitStatusOf(await command.report(result, options));
}
