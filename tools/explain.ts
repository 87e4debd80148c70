#!/usr/bin/env node
// npm run explain -- POST /runs/query -H 'x-api-key: k' [--region eu] [--ip 203.0.113.7] [--secret S] [--json]
//
// Prints the rule a request meets, why (matcher, identity, precedence), its limit in the region
// and the hashed counter key, using the same modules the gateway runs.
import { explainReport } from "../src/gateway/explain-report.ts";
import { ruleTables } from "../src/core/rules/tables.ts";
import { BadArgument, refusal } from "./kit/args.ts";
import { HELP, parseExplainArgs, type ExplainArgs } from "./explain-args.ts";

function fail(error: BadArgument): never {
  console.error(refusal("explain", error));
  process.exit(2);
}

async function main(): Promise<void> {
  let args: ExplainArgs;
  try {
    args = parseExplainArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof BadArgument) fail(error);
    throw error;
  }
  if (args.help) {
    console.log(HELP);
    return;
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
    secret: args.secret ?? process.env.IDENTITY_HMAC_SECRET,
    tables: ruleTables,
  });
  if (!answer.ok) {
    console.error(`explain: the gateway would refuse this request with ${answer.status}: ${answer.detail}`);
    process.exit(2);
  }
  console.log(args.json ? JSON.stringify(answer.json, null, 2) : answer.text);
}

await main();
