// The deploy and rollback commands as one function of their arguments, their environment and
// where their lines go, returning the exit status: main.ts runs it for the shell, and the tests
// call it in the test's own process (the stand-in wrangler still runs as a command).
import { setTimeout as sleep } from "node:timers/promises";
import { BadArgument, refusal } from "../kit/args.ts";
import type { CommandOutput } from "../kit/command.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import { DEPLOY_HELP, EXIT, parseDeployArgs, parseRollbackArgs, ROLLBACK_HELP } from "./args.ts";
import { checkDeployment } from "./configuration.ts";
import { readEnvironment } from "./environment.ts";
import { deployPlanText, rollbackPlanText } from "./plan.ts";
import { release } from "./release.ts";
import { rollBackRegion } from "./rollback.ts";
import { checkRuleTables } from "./rule-tables.ts";
import type { Run } from "./run.ts";
import { UnexpectedAnswer } from "./wrangler-answers.ts";
import { commandFrom } from "./wrangler.ts";

/** What the command reads of its environment: TOLLGATE_WRANGLER, TOLLGATE_TSC, TOLLGATE_ADMIN_TOKEN. */
export type CommandEnv = Readonly<Record<string, string | undefined>>;

/** Runs `deploy ...` or `rollback ...` (package.json's scripts pass the first word) and returns its exit status (EXIT). */
export async function deployCommand(argv: readonly string[], env: CommandEnv, output: CommandOutput): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== "deploy" && command !== "rollback") {
    output.err(`deploy: the first argument must be deploy or rollback (package.json's scripts pass it)`);
    return EXIT.badArguments;
  }
  try {
    return command === "rollback" ? await rollback(rest, env, output) : await deploy(rest, env, output);
  } catch (error) {
    if (error instanceof BadArgument) {
      output.err(refusal(command, error));
      return EXIT.badArguments;
    }
    if (!(error instanceof UnexpectedAnswer)) throw error;
    output.err(`deploy: ${error.message}; nothing more was done`);
    return EXIT.unexpected;
  }
}

async function rollback(argv: readonly string[], env: CommandEnv, output: CommandOutput): Promise<number> {
  const options = parseRollbackArgs(argv);
  if (options.help) return (output.out(ROLLBACK_HELP), EXIT.done);
  const run = await runFor("rollback", options, env, output);
  if (!run) return EXIT.refused;
  rollbackPlanText(run, options).forEach(output.out);
  if (options.dryRun) return EXIT.done;
  output.out("");
  return rollBackRegion(run, options);
}

async function deploy(argv: readonly string[], env: CommandEnv, output: CommandOutput): Promise<number> {
  const options = parseDeployArgs(argv);
  if (options.help) return (output.out(DEPLOY_HELP), EXIT.done);
  const run = await runFor("deploy", options, env, output);
  if (!run) return EXIT.refused;
  const rules = await checkRuleTables(run.environment.root);
  deployPlanText(run, options, rules).forEach(output.out);
  if (options.dryRun) return EXIT.done;
  output.out("");
  return release(run, options, rules);
}

/** The run's configuration and commands; undefined (said on `err`) when the config cannot be read. */
async function runFor(tool: string, options: { configPath: string; region: Region }, env: CommandEnv, output: CommandOutput): Promise<Run | undefined> {
  let environment;
  try {
    environment = await readEnvironment(options.configPath, options.region);
  } catch (error) {
    output.err(`${tool}: cannot read ${options.configPath} [env.${options.region}]: ${(error as Error).message}`);
    return undefined;
  }
  return {
    environment,
    deployment: checkDeployment(environment),
    wrangler: commandFrom(env.TOLLGATE_WRANGLER, ["wrangler"]),
    tsc: commandFrom(env.TOLLGATE_TSC, ["tsc"]),
    token: env.TOLLGATE_ADMIN_TOKEN || undefined,
    out: output.out,
    sleep: (ms) => sleep(ms),
  };
}
