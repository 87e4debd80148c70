// Pure: the arguments of `npm run deploy` and `npm run rollback`. Every refusal names the option
// or operand it refuses.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { REGIONS, type Region } from "../../src/core/rules/schema.ts";
import { BadArgument, parseOptions } from "../kit/args.ts";
import { isRegion } from "./environment.ts";

/** What each exit status of both commands means (also in their --help and docs/deploying.md). */
export const EXIT = {
  /** Deployed (or rolled back) and healthy; or, with --dry-run, the plan was printed. */
  done: 0,
  /** Something unexpected: a bug, or wrangler answered in a shape the tool does not know. */
  unexpected: 1,
  /** Bad arguments. */
  badArguments: 2,
  /** Refused before anything changed: a check failed (configuration, rule tables, typecheck, build, secrets, a pending migration, a rollout in progress). */
  refused: 3,
  /** The new version failed (a probe or a rollout step) and the old version serves 100% again. */
  rolledBack: 4,
  /** Not the state intended and not restored: an operator must look (the message says what to do). */
  needsOperator: 5,
} as const;

const EXIT_TEXT = `exit status: 0 done (or the dry-run plan printed, findings included), 2 bad arguments,
3 refused before anything changed, 4 the new version failed and the old one serves 100% again,
5 not restored: read the message (a failed rollback, routes not applied, a migrating release
unhealthy), 1 unexpected`;

/** The repository this tool belongs to (its wrangler.toml is the default config). */
const REPOSITORY = resolve(fileURLToPath(new URL("../..", import.meta.url)));

export const DEPLOY_HELP = `usage: npm run deploy -- us|eu [options]

Deploys the region's Worker from the repository (docs/deploying.md): checks the configuration
(no example hosts or origins), the rule tables, the types, the build and the secrets, uploads a
version and rolls it out in steps, probing the admin host's health after each; a failed probe
rolls back to the version that served before.

  --dry-run              print the plan (every command, hosts, routes, origins, secrets, steps)
                         and what a real deploy would refuse; runs nothing, needs no login
  --migrate              for a release with a Durable Object migration (or the first deploy):
                         one \`wrangler deploy\` at 100%, no steps, no rollback (the platform
                         refuses rollbacks across a migration); the deploy says when it is needed
  --steps P,P,...        rollout percentages, ascending, ending at 100 (default 0,10,50,100;
                         0 is a smoke step: the new version serves only the probe)
  --soak SECONDS         wait after each step before probing (default 60)
  --probe-url URL        probe this URL instead of https://<first ADMIN_HOSTS host>/_tollgate/health
  --probe-attempts N     tries per probe before it fails (default 5)
  --probe-interval S     seconds between tries (default 3)
  --config PATH          the wrangler config (default the repository's wrangler.toml)
  -h, --help             this text

environment: TOLLGATE_ADMIN_TOKEN (sent as a bearer token by the probe), TOLLGATE_WRANGLER
(the wrangler command, default "wrangler"), TOLLGATE_TSC (the tsc command, default "tsc")

${EXIT_TEXT}`;

export const ROLLBACK_HELP = `usage: npm run rollback -- us|eu [VERSION-ID] [options]

Serves VERSION-ID (default: the last version that served 100% before the current deployment,
as wrangler rollback picks it) to 100% of the region's traffic with \`wrangler rollback\`, then
probes the admin host's health.

  --dry-run              print the plan; runs nothing, needs no login
  --probe-url URL        probe this URL instead of https://<first ADMIN_HOSTS host>/_tollgate/health
  --probe-attempts N     tries before the probe fails (default 5)
  --probe-interval S     seconds between tries (default 3)
  --config PATH          the wrangler config (default the repository's wrangler.toml)
  -h, --help             this text

environment: TOLLGATE_ADMIN_TOKEN, TOLLGATE_WRANGLER (as for npm run deploy)

${EXIT_TEXT}`;

/** How the health of a deployment is checked. */
export interface ProbeSettings {
  /** Undefined: the first ADMIN_HOSTS host's /_tollgate/health. */
  readonly url: string | undefined;
  readonly attempts: number;
  readonly intervalSeconds: number;
}

interface CommonOptions {
  readonly help: boolean;
  readonly region: Region;
  readonly dryRun: boolean;
  readonly probe: ProbeSettings;
  readonly configPath: string;
}

export interface DeployOptions extends CommonOptions {
  readonly migrate: boolean;
  /** Ascending, ending at 100. */
  readonly steps: readonly number[];
  readonly soakSeconds: number;
}

export interface RollbackOptions extends CommonOptions {
  /** Undefined: the previous stable version. */
  readonly versionId: string | undefined;
}

const COMMON = {
  "dry-run": { type: "boolean", default: false },
  "probe-url": { type: "string" },
  "probe-attempts": { type: "string", default: "5" },
  "probe-interval": { type: "string", default: "3" },
  config: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** @throws BadArgument naming the operand or option */
export function parseDeployArgs(argv: readonly string[]): DeployOptions {
  const { values, positionals } = parseOptions(
    argv,
    { ...COMMON, migrate: { type: "boolean", default: false }, steps: { type: "string", default: "0,10,50,100" }, soak: { type: "string", default: "60" } },
    true,
  );
  const help = values.help;
  if (!help && positionals.length !== 1) throw new BadArgument(`expected the region, one of ${REGIONS.join(", ")} (got ${positionals.length} operands)`);
  return {
    ...common(values, positionals, help),
    migrate: values.migrate,
    steps: parseSteps(values.steps),
    soakSeconds: seconds("--soak", values.soak),
  };
}

/** @throws BadArgument naming the operand or option */
export function parseRollbackArgs(argv: readonly string[]): RollbackOptions {
  const { values, positionals } = parseOptions(argv, COMMON, true);
  const help = values.help;
  if (!help && (positionals.length < 1 || positionals.length > 2))
    throw new BadArgument(`expected the region (${REGIONS.join(", ")}) and optionally a version id (got ${positionals.length} operands)`);
  const versionId = positionals[1];
  if (versionId !== undefined && !/^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$/i.test(versionId)) {
    throw new BadArgument(`VERSION-ID: "${versionId}" is not a Worker version id (a UUID, as \`wrangler versions list --env <region>\` shows)`);
  }
  return { ...common(values, positionals, help), versionId: versionId?.toLowerCase() };
}

function common(
  values: { "dry-run": boolean; "probe-url"?: string; "probe-attempts": string; "probe-interval": string; config?: string },
  positionals: readonly string[],
  help: boolean,
): CommonOptions & { help: boolean } {
  const region = positionals[0] ?? "us";
  if (!help && !isRegion(region)) throw new BadArgument(`region: "${region}" is not one of ${REGIONS.join(", ")} (each is an environment of wrangler.toml)`);
  const url = values["probe-url"];
  if (url !== undefined && !/^https?:\/\//.test(url)) throw new BadArgument(`--probe-url: "${url}" is not an http(s) URL`);
  const attempts = Number(values["probe-attempts"]);
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > 100)
    throw new BadArgument(`--probe-attempts: must be a whole number from 1 to 100 (got "${values["probe-attempts"]}")`);
  return {
    help,
    region: region as Region,
    dryRun: values["dry-run"],
    probe: { url, attempts, intervalSeconds: seconds("--probe-interval", values["probe-interval"]) },
    configPath: resolve(values.config ?? resolve(REPOSITORY, "wrangler.toml")),
  };
}

function seconds(option: string, text: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value < 0 || value > 86_400)
    throw new BadArgument(`${option}: must be seconds from 0 to 86400 (got "${text}")`);
  return value;
}

function parseSteps(text: string): number[] {
  const steps = text.split(",").map((s) => s.trim());
  const numbers = steps.map(Number);
  if (steps.some((s, i) => s === "" || !Number.isInteger(numbers[i]) || numbers[i]! < 0 || numbers[i]! > 100)) {
    throw new BadArgument(`--steps: "${text}" is not a list of whole percentages from 0 to 100`);
  }
  if (numbers.some((n, i) => i > 0 && n <= numbers[i - 1]!)) throw new BadArgument(`--steps: "${text}" must ascend`);
  if (numbers.at(-1) !== 100) throw new BadArgument(`--steps: "${text}" must end at 100 (a rollout that stops short leaves two versions serving)`);
  return numbers;
}
