#!/usr/bin/env node
// npm run explain -- POST /runs/query -H 'x-api-key: k' [--region eu] [--ip 203.0.113.7] [--secret S] [--json]
//
// Prints the rule a request meets, why (matcher, identity, precedence), its limit in the region
// and the hashed counter key, using the same modules the gateway runs (explain-command.ts).
import { explainCommand } from "./explain-command.ts";

process.exitCode = await explainCommand(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
