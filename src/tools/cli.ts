// The one way tollgate's commands read their arguments (explain, loadtest): node:util's parseArgs,
// every refusal a BadArgument whose message names the option, printed as one line that says how
// to get help, never buried under the usage text.
import { parseArgs, type ParseArgsConfig } from "node:util";

/** A refused argument; the message starts with the option (or operand) it refuses. */
export class BadArgument extends Error {
  override name = "BadArgument";
}

/**
 * parseArgs, strict, with its errors turned into BadArgument ("Unknown option '--foo'" and the
 * like keep only their first line).
 */
export function parseOptions<O extends NonNullable<ParseArgsConfig["options"]>>(argv: readonly string[], options: O, allowPositionals = false) {
  try {
    return parseArgs({ args: [...argv], options, allowPositionals, strict: true });
  } catch (error) {
    throw new BadArgument((error as Error).message.split("\n")[0]!);
  }
}

/** The one line a refused argument prints: what is wrong, and where the options are explained. */
export function refusal(tool: string, error: BadArgument): string {
  return `${tool}: ${error.message} (npm run ${tool} -- --help lists every option)`;
}
