#!/usr/bin/env node
// npm run deploy -- us|eu [--dry-run] [--migrate] ...   and   npm run rollback -- us|eu [VERSION-ID]
//
// Deploys one region's Worker from the repository alone (docs/deploying.md): the plan is printed
// first, and with --dry-run only the plan, with no network and no login. The command itself:
// command.ts.
import { deployCommand } from "./command.ts";

process.exitCode = await deployCommand(process.argv.slice(2), process.env, {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
});
