// Pure: the plan of a deploy or a rollback as text: what the dry run prints, and what a real run
// prints before it starts. Every command line comes from commands.ts, the ones the run executes.
import type { DeployOptions, ProbeSettings, RollbackOptions } from "./args.ts";
import {
  buildArgs,
  deploymentListArgs,
  deploymentStatusArgs,
  fullDeployArgs,
  rollbackArgs,
  secretListArgs,
  shellLine,
  triggersDeployArgs,
  typecheckArgs,
  versionsDeployArgs,
  versionsUploadArgs,
} from "./commands.ts";
import { routeHost, type Deployment } from "./configuration.ts";
import type { Environment } from "./environment.ts";
import { healthUrl } from "./probe.ts";
import type { RuleTablesCheck } from "./rule-tables.ts";

/** The secret without which the gateway refuses to serve (identities would be hashed unkeyed). */
export const REQUIRED_SECRET = "IDENTITY_HMAC_SECRET";
/** Either turns the admin API on; neither is required (the admin API is then off, 404). */
export const ADMIN_TOKEN_SECRETS = ["ADMIN_TOKEN", "ADMIN_TOKENS"] as const;

/** What the plan is made from. */
export interface PlanInput {
  readonly environment: Environment;
  readonly deployment: Deployment;
  readonly wrangler: readonly string[];
  readonly tsc: readonly string[];
}

/** The commit messages wrangler records with each version and deployment. */
export const messages = {
  upload: (region: string) => `npm run deploy -- ${region}`,
  step: (percent: number) => `npm run deploy: rollout ${percent}%`,
  back: (why: string) => `npm run deploy: rolled back (${why})`,
  full: (region: string) => `npm run deploy -- ${region} --migrate`,
  rollback: (region: string) => `npm run rollback -- ${region}`,
};

/** The URL the probe checks: --probe-url, else the first admin host's health. */
export function probeUrl(settings: ProbeSettings, deployment: Deployment): string | undefined {
  return settings.url ?? (deployment.adminHosts[0] ? healthUrl(deployment.adminHosts[0]) : undefined);
}

/** The plan of `npm run deploy`, ready to print. */
export function deployPlanText(input: PlanInput, options: DeployOptions, rules: RuleTablesCheck): string[] {
  const { environment: env, deployment, wrangler, tsc } = input;
  const { region } = env;
  const w = (args: readonly string[]) => shellLine([...wrangler, ...args]);
  const lines = [
    `tollgate deploy plan: region ${region}, Worker ${env.worker}, from ${env.configName} [env.${region}]${options.dryRun ? " (dry run: nothing is run)" : ""}`,
    "",
    ...configurationLines(input, options.probe),
    "",
    `secrets checked (${w(secretListArgs(region))}):`,
    `  ${REQUIRED_SECRET}  required (at least 32 bytes); missing: refused. Set it: npx wrangler secret put ${REQUIRED_SECRET} --env ${region}`,
    `  ${ADMIN_TOKEN_SECRETS.join(" or ")}  reported: without one the admin API is off (404)`,
    "",
    `Durable Object migrations in ${env.configName}: ${env.migrationTags.join(", ") || "none"} (a deployed Worker must be at ${env.migrationTags.at(-1) ?? "-"})`,
    "",
  ];
  const steps: string[] = [];
  const step = (text: string) => steps.push(`  ${String(stepCount(steps) + 1).padStart(2)}. ${text}`);
  const note = (text: string) => steps.push(`      ${text}`);
  step(
    `validate the rule tables (rules/*.json, the strict loader npm run explain uses): ${rules.ok ? `ok here, ${rules.tables} tables, ${rules.rules} rules` : `FAILS here (${rules.problems.length} problems)`}`,
  );
  for (const args of typecheckArgs) step(`typecheck: ${shellLine([...tsc, ...args])}`);
  step(`build: ${w(buildArgs(region))}`);
  step(w(secretListArgs(region)));
  if (!options.migrate) {
    step(`${w(deploymentStatusArgs(region))}  -> <old>, the version serving 100% (refused if traffic is split: finish or roll back first)`);
    step(`${w(versionsUploadArgs(region, messages.upload(region)))}  -> <new>`);
    note("wrangler refuses the upload when a Durable Object migration is pending: nothing is deployed, and the deploy");
    note("stops (exit 3) asking for --migrate");
    for (const percent of options.steps) {
      const traffic: Array<[string, number]> =
        percent === 100
          ? [["<new>", 100]]
          : [
              ["<new>", percent],
              ["<old>", 100 - percent],
            ];
      step(w(versionsDeployArgs(region, traffic, messages.step(percent))));
      note(`wait ${options.soakSeconds} s, then probe${percent === 100 ? "" : ` pinned to <new>`}`);
    }
    step(`${w(triggersDeployArgs(region))}  (the routes and custom domains; versions deploy leaves them alone)`);
    step("probe (unpinned): the release is done");
    const firstRolloutStep = stepCount(steps) - options.steps.length - 2;
    steps.push(
      "",
      `  on a failed probe or step: ${w(versionsDeployArgs(region, [["<old>", 100]], messages.back("<why>")))}`,
      "      then probe, and exit 4 (5 if that fails too)",
      `  with --migrate (a pending migration, or the first deploy), steps ${firstRolloutStep}-${stepCount(steps)} are instead`,
      `      ${w(fullDeployArgs(region, messages.full(region)))}, then probe: no steps, no rollback (Cloudflare refuses rollbacks across a migration)`,
    );
  } else {
    step(`${w(fullDeployArgs(region, messages.full(region)))}  (new version at 100%, migrations and routes applied)`);
    step("probe; unhealthy: exit 5 (no rollback across a migration: fix forward with another deploy)");
  }
  lines.push(options.migrate ? "steps (--migrate: one full deploy):" : "steps:", ...steps, "");
  lines.push(...findingLines(deployment, rules, options.dryRun));
  return lines;
}

/** The plan of `npm run rollback`, ready to print. */
export function rollbackPlanText(input: PlanInput, options: RollbackOptions): string[] {
  const { environment: env, wrangler } = input;
  const { region } = env;
  const w = (args: readonly string[]) => shellLine([...wrangler, ...args]);
  const target = options.versionId ?? "<previous>";
  const url = probeUrl(options.probe, input.deployment);
  return [
    `tollgate rollback plan: region ${region}, Worker ${env.worker}, from ${env.configName} [env.${region}]${options.dryRun ? " (dry run: nothing is run)" : ""}`,
    "",
    "steps:",
    `   1. ${w(deploymentListArgs(region))}  -> the current deployment${options.versionId ? "" : ", and <previous>: the newest earlier deployment's version at 100%"}`,
    `   2. ${w(rollbackArgs(region, target, messages.rollback(region)))}`,
    `   3. probe ${url ?? "(no admin host: ADMIN_HOSTS is empty)"}: unhealthy, exit 5`,
    "",
    "wrangler refuses a rollback across a Durable Object migration; roll forward with npm run deploy then.",
  ];
}

const stepCount = (lines: readonly string[]) => lines.filter((line) => /^\s+\d+\./.test(line)).length;

function configurationLines(input: PlanInput, probe: ProbeSettings): string[] {
  const { environment: env, deployment } = input;
  const varsAt = `${env.configName} [env.${env.region}.vars]`;
  const width = Math.max(...deployment.upstreamHosts.map((h) => h.pattern.length), ...deployment.adminHosts.map((h) => h.length), 10);
  const originOf = Object.fromEntries(deployment.origins.map((o) => [o.upstream, o.origin]));
  const url = probeUrl(probe, deployment);
  return [
    `hosts (${varsAt} UPSTREAM_HOSTS, ADMIN_HOSTS):`,
    ...deployment.upstreamHosts.map((h) => `  ${h.pattern.padEnd(width)}  -> ${h.upstream.padEnd(13)}  origin ${originOf[h.upstream] || "(none)"}`),
    ...deployment.adminHosts.map((h) => `  ${h.padEnd(width)}  -> admin API and dashboard`),
    `origins (${varsAt}):`,
    ...deployment.origins.map((o) => `  ${o.setting.padEnd(21)} ${o.origin || "(empty)"}`),
    `routes (${env.configName} [env.${env.region}] routes; applied by ${input.wrangler.join(" ")} triggers deploy, or by a full deploy):`,
    ...deployment.routes.map(
      (r) => `  ${r.pattern.padEnd(width + 2)}  ${r.customDomain ? "custom domain" : `route in zone ${r.zone ?? "(none)"}`}  serves ${routeHost(r)}`,
    ),
    `probe: GET ${url ?? "(none: ADMIN_HOSTS is empty)"}${probe.url ? " (--probe-url)" : ""}`,
    `  expects 200 {"status":"ok"}; ${probe.attempts} tries ${probe.intervalSeconds} s apart; Authorization: Bearer $TOLLGATE_ADMIN_TOKEN when set`,
  ];
}

function findingLines(deployment: Deployment, rules: RuleTablesCheck, dryRun: boolean): string[] {
  const problems = [...deployment.findings.map((f) => `${f.setting}: ${f.problem}`), ...(rules.ok ? [] : rules.problems)];
  if (problems.length === 0) return [`findings: none${dryRun ? ": a real deploy would go ahead" : ""}`];
  return [`findings: a real deploy is refused (exit 3) until each is fixed:`, ...problems.map((p) => `  - ${p}`)];
}
