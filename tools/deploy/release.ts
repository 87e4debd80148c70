// `npm run deploy` after its plan is printed: the checks, then a version uploaded and rolled out in
// steps with a probe after each, or (--migrate) one full deploy. Returns the exit status (EXIT).
import { EXIT, type DeployOptions } from "./args.ts";
import {
  buildArgs,
  deploymentStatusArgs,
  fullDeployArgs,
  secretListArgs,
  triggersDeployArgs,
  typecheckArgs,
  versionsDeployArgs,
  versionsUploadArgs,
  type Traffic,
} from "./commands.ts";
import { ADMIN_TOKEN_SECRETS, messages, probeUrl, REQUIRED_SECRET } from "./plan.ts";
import type { RuleTablesCheck } from "./rule-tables.ts";
import { execute, probeHealth, type Run } from "./run.ts";
import { deploymentStatus, failureMessage, madeVersionId, pendingMigration, secretNames, stableVersion } from "./wrangler-answers.ts";

/** Runs the deploy; every way it ends is printed as its last line. */
export async function release(run: Run, options: DeployOptions, rules: RuleTablesCheck): Promise<number> {
  const { environment: env, deployment } = run;
  const { region } = env;
  const refuse = (why: string) => {
    run.out(`deploy refused, nothing was changed: ${why}`);
    return EXIT.refused;
  };
  const wrangler = (args: readonly string[]) => execute(run, run.wrangler, args);

  if (deployment.findings.length > 0 || !rules.ok) return refuse(`fix the findings above in ${env.configName}${rules.ok ? "" : " and rules/"}`);
  const url = probeUrl(options.probe, deployment)!;

  for (const args of typecheckArgs) {
    if ((await execute(run, run.tsc, args)).code !== 0) return refuse(`the typecheck failed (tsc ${args.join(" ")})`);
  }
  const build = await wrangler(buildArgs(region));
  if (build.code !== 0) return refuse(`the build failed: ${failureMessage(build)}`);

  const listed = await wrangler(secretListArgs(region));
  if (listed.code !== 0) return refuse(`could not list ${env.worker}'s secrets (logged in? \`npx wrangler login\`): ${failureMessage(listed)}`);
  const secrets = secretNames(listed.stdout);
  if (!secrets.includes(REQUIRED_SECRET)) {
    return refuse(
      `${env.worker} has no ${REQUIRED_SECRET} (the gateway refuses to serve without it). Set it, at least 32 bytes: openssl rand -base64 48 | npx wrangler secret put ${REQUIRED_SECRET} --env ${region}`,
    );
  }
  const admin = ADMIN_TOKEN_SECRETS.filter((name) => secrets.includes(name));
  run.out(
    `secrets: ${REQUIRED_SECRET} set; admin token ${admin.length > 0 ? `set (${admin.join(", ")})` : `not set: the admin API stays off (404); \`npx wrangler secret put ADMIN_TOKEN --env ${region}\` turns it on`}`,
  );

  if (options.migrate) return fullDeploy(run, options, url);

  const status = await wrangler(deploymentStatusArgs(region));
  if (status.code !== 0)
    return refuse(`could not read ${env.worker}'s deployment: ${failureMessage(status)} (a Worker never deployed takes its first release with --migrate)`);
  const current = deploymentStatus(status.stdout);
  const old = stableVersion(current);
  if (!old) {
    const split = current.versions.map((v) => `${v.versionId}@${v.percent}%`).join(", ");
    return refuse(
      `${env.worker}'s traffic is split (${split}): finish that rollout (npx wrangler versions deploy <id>@100% --env ${region}) or npm run rollback -- ${region}, then deploy`,
    );
  }
  run.out(`serving now: ${old} at 100%`);

  const upload = await wrangler(versionsUploadArgs(region, messages.upload(region)));
  if (upload.code !== 0) {
    if (pendingMigration(upload)) {
      return refuse(
        `this release carries a Durable Object migration ${env.worker} has not applied (${env.configName} [[env.${region}.migrations]], last tag ${env.migrationTags.at(-1)}). ` +
          `wrangler cannot upload it as a version, so it cannot be rolled out in steps, and Cloudflare refuses rollbacks across a migration. ` +
          `Deploy it at once with: npm run deploy -- ${region} --migrate`,
      );
    }
    return refuse(`the upload failed: ${failureMessage(upload)}`);
  }
  const made = madeVersionId(upload, "version-upload");
  if (!made) {
    run.out('wrangler uploaded a version but its id could not be read (no version-upload output entry, no "Worker Version ID" line); nothing was deployed');
    return EXIT.unexpected;
  }
  run.out(`uploaded: ${made}`);

  const rollBack = async (why: string) => {
    run.out(`rolling back: ${why}`);
    const back = await wrangler(versionsDeployArgs(region, [[old, 100]], messages.back(why)));
    if (back.code !== 0) {
      run.out(`ROLLBACK FAILED: ${failureMessage(back)}. ${made} may still serve traffic: run npx wrangler versions deploy ${old}@100% --env ${region} --yes`);
      return EXIT.needsOperator;
    }
    const health = await probeHealth(run, url, options.probe, undefined);
    if (!health.healthy) {
      run.out(`rolled back to ${old} at 100%, but it is unhealthy too (${health.detail}): the fault is not in this release alone`);
      return EXIT.needsOperator;
    }
    run.out(`rolled back: ${old} serves 100% again and is healthy; ${made} serves nothing`);
    return EXIT.rolledBack;
  };

  for (const percent of options.steps) {
    const traffic: Traffic =
      percent === 100
        ? [[made, 100]]
        : [
            [made, percent],
            [old, 100 - percent],
          ];
    const step = await wrangler(versionsDeployArgs(region, traffic, messages.step(percent)));
    if (step.code !== 0) return rollBack(`the ${percent}% step failed: ${failureMessage(step)}`);
    await run.sleep(options.soakSeconds * 1000);
    const health = await probeHealth(run, url, options.probe, percent === 100 ? undefined : made);
    if (!health.healthy) return rollBack(`unhealthy at ${percent}%: ${health.detail}`);
  }

  const triggers = await wrangler(triggersDeployArgs(region));
  if (triggers.code !== 0) {
    run.out(
      `ROUTES NOT APPLIED: ${failureMessage(triggers)}. ${made} serves 100% and is healthy on the routes it had; apply ${env.configName}'s routes with npx wrangler triggers deploy --env ${region}`,
    );
    return EXIT.needsOperator;
  }
  const final = await probeHealth(run, url, options.probe, undefined);
  if (!final.healthy) return rollBack(`unhealthy once the routes were applied: ${final.detail} (the routes stay as ${env.configName} has them)`);
  run.out(`deployed: ${made} serves 100% of ${env.worker} (was ${old}); back with npm run rollback -- ${region}`);
  return EXIT.done;
}

/** --migrate: one `wrangler deploy` (migrations and routes applied), then the probe; no way back. */
async function fullDeploy(run: Run, options: DeployOptions, url: string): Promise<number> {
  const { region, worker } = run.environment;
  const deployed = await execute(run, run.wrangler, fullDeployArgs(region, messages.full(region)));
  if (deployed.code !== 0) {
    run.out(`WRANGLER DEPLOY FAILED: ${failureMessage(deployed)}. Check what serves with npx wrangler deployments status --env ${region}`);
    return EXIT.needsOperator;
  }
  const made = madeVersionId(deployed, "deploy") ?? "(id not read)";
  await run.sleep(options.soakSeconds * 1000);
  const health = await probeHealth(run, url, options.probe, undefined);
  if (!health.healthy) {
    run.out(
      `${made} serves 100% of ${worker} and is UNHEALTHY (${health.detail}). A release with a migration cannot be rolled back: fix forward and deploy again`,
    );
    return EXIT.needsOperator;
  }
  run.out(`deployed: ${made} serves 100% of ${worker}, migrations applied (${run.environment.migrationTags.at(-1) ?? "none"})`);
  return EXIT.done;
}
