// `npm run rollback` after its plan is printed: the target version to 100% with wrangler rollback,
// then the probe. Returns the exit status (EXIT).
import { EXIT, type RollbackOptions } from "./args.ts";
import { deploymentListArgs, rollbackArgs } from "./commands.ts";
import { messages, probeUrl } from "./plan.ts";
import { reservedName } from "./reserved-names.ts";
import { execute, probeHealth, type Run } from "./run.ts";
import { deploymentList, failureMessage, previousStableVersion, stableVersion } from "./wrangler-answers.ts";

/**
 * `wrangler rollback` rather than `versions deploy <id>@100%`: it is the platform's own rollback
 * (recorded as one in the deployment history), and it goes ahead when secrets changed since the
 * target version, where a plain deployment would be refused.
 */
export async function rollBackRegion(run: Run, options: RollbackOptions): Promise<number> {
  const { environment: env, deployment } = run;
  const { region } = env;
  const refuse = (why: string) => {
    run.out(`rollback refused, nothing was changed: ${why}`);
    return EXIT.refused;
  };
  const url = probeUrl(options.probe, deployment);
  if (!url) return refuse(`${env.configName} [env.${region}.vars] ADMIN_HOSTS is empty: the probe needs the admin host (or --probe-url)`);
  const admin = deployment.adminHosts[0];
  if (!options.probe.url && admin && reservedName(admin)) {
    return refuse(
      `${env.configName} [env.${region}.vars] ADMIN_HOSTS: "${admin}" is an example host (${reservedName(admin)}); write your admin host, or give --probe-url`,
    );
  }

  const listed = await execute(run, run.wrangler, deploymentListArgs(region));
  if (listed.code !== 0) return refuse(`could not list ${env.worker}'s deployments (logged in? \`npx wrangler login\`): ${failureMessage(listed)}`);
  const history = deploymentList(listed.stdout);
  const target = options.versionId ?? previousStableVersion(history);
  if (!target)
    return refuse(`no earlier deployment of ${env.worker} served one version at 100%: name the version (npx wrangler versions list --env ${region})`);
  const current = history[0];
  if (current && stableVersion(current) === target) return refuse(`${target} already serves 100% of ${env.worker}`);
  run.out(`rolling back ${env.worker} to ${target}`);

  const back = await execute(run, run.wrangler, rollbackArgs(region, target, messages.rollback(region)));
  if (back.code !== 0)
    return refuse(`wrangler rollback failed: ${failureMessage(back)} (across a Durable Object migration, roll forward with npm run deploy instead)`);
  const health = await probeHealth(run, url, options.probe, undefined);
  if (!health.healthy) {
    run.out(`${target} serves 100% of ${env.worker} and is UNHEALTHY (${health.detail}): the fault is not in the version alone`);
    return EXIT.needsOperator;
  }
  run.out(`rolled back: ${target} serves 100% of ${env.worker} and is healthy`);
  return EXIT.done;
}
