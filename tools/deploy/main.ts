#!/usr/bin/env node
// npm run deploy -- us|eu [--dry-run] [--migrate] ...   and   npm run rollback -- us|eu [VERSION-ID]
//
// Deploys one region's Worker from the repository alone (docs/deploying.md): the plan is printed
// first, and with --dry-run only the plan, with no network and no login.
import { setTimeout as sleep } from "node:timers/promises";
import { commandOptions } from "../kit/args.ts";
import { DEPLOY_HELP, EXIT, parseDeployArgs, parseRollbackArgs, ROLLBACK_HELP } from "./args.ts";
import { checkDeployment } from "./configuration.ts";
import { readEnvironment, type Environment } from "./environment.ts";
import { deployPlanText, rollbackPlanText } from "./plan.ts";
import { release } from "./release.ts";
import { rollBackRegion } from "./rollback.ts";
import { checkRuleTables } from "./rule-tables.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import type { Run } from "./run.ts";
import { UnexpectedAnswer } from "./wrangler-answers.ts";
import { commandFrom } from "./wrangler.ts";

const out = (line: string) => console.log(line);

async function environmentOf(tool: string, configPath: string, region: Region): Promise<Environment> {
  try {
    return await readEnvironment(configPath, region);
  } catch (error) {
    console.error(`${tool}: cannot read ${configPath} [env.${region}]: ${(error as Error).message}`);
    process.exit(EXIT.refused);
  }
}

async function main(): Promise<number> {
  const [command, ...argv] = process.argv.slice(2);
  if (command !== "deploy" && command !== "rollback") {
    console.error(`deploy: the first argument must be deploy or rollback (package.json's scripts pass it)`);
    return EXIT.badArguments;
  }
  if (command === "rollback") {
    const options = commandOptions("rollback", parseRollbackArgs, ROLLBACK_HELP, argv);
    const run = await runFor("rollback", options);
    rollbackPlanText(run, options).forEach(out);
    if (options.dryRun) return EXIT.done;
    out("");
    return rollBackRegion(run, options);
  }
  const options = commandOptions("deploy", parseDeployArgs, DEPLOY_HELP, argv);
  const run = await runFor("deploy", options);
  const rules = await checkRuleTables(run.environment.root);
  deployPlanText(run, options, rules).forEach(out);
  if (options.dryRun) return EXIT.done;
  out("");
  return release(run, options, rules);
}

async function runFor(tool: string, options: { configPath: string; region: Region }): Promise<Run> {
  const environment = await environmentOf(tool, options.configPath, options.region);
  return {
    environment,
    deployment: checkDeployment(environment),
    wrangler: commandFrom(process.env.TOLLGATE_WRANGLER, ["wrangler"]),
    tsc: commandFrom(process.env.TOLLGATE_TSC, ["tsc"]),
    token: process.env.TOLLGATE_ADMIN_TOKEN || undefined,
    out,
    sleep: (ms) => sleep(ms),
  };
}

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof UnexpectedAnswer)) throw error;
  console.error(`deploy: ${error.message}; nothing more was done`);
  process.exitCode = EXIT.unexpected;
}
