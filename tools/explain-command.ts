// The explain command as a function of its arguments, its environment and where its lines go,
// returning the exit status: tools/explain.ts runs it for the shell, and the tests call it in
// their own process.
import { explainReport } from "../src/gateway/explain-report.ts";
import { ruleTables } from "../src/core/rules/tables.ts";
import { BadArgument, refusal } from "./kit/args.ts";
import type { CommandOutput } from "./kit/command.ts";
import { HELP, parseExplainArgs, type ExplainArgs } from "./explain-args.ts";

/** Explains the request `argv` describes; 0 when explained, 2 for a bad argument or a request the gateway would refuse. */
export async function explainCommand(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, output: CommandOutput): Promise<number> {
  let args: ExplainArgs;
  try {
    args = parseExplainArgs(argv);
  } catch (error) {
    if (!(error instanceof BadArgument)) throw error;
    output.err(refusal("explain", error));
    return 2;
  }
  if (args.help) {
    output.out(HELP);
    return 0;
  }
  // Repeated -H lines are joined with ", " as the Workers runtime joins repeated header lines, so
  // the gateway's own reading refuses them here exactly as it would there.
  const headers = new Headers();
  for (const [name, value] of args.headers) headers.append(name, value);

  // The same report the admin API answers (POST /_tollgate/explain): one implementation.
  const answer = await explainReport({
    method: args.method,
    path: args.path,
    headers,
    ip: args.ip,
    region: args.region,
    upstream: args.upstream,
    secret: args.secret ?? env.IDENTITY_HMAC_SECRET,
    tables: ruleTables,
  });
  if (!answer.ok) {
    output.err(`explain: the gateway would refuse this request with ${answer.status}: ${answer.detail}`);
    return 2;
  }
  output.out(args.json ? JSON.stringify(answer.json, null, 2) : answer.text);
  return 0;
}
