// Pure: what wrangler's answers say, read from its JSON output and output entries. Anything in an
// unknown shape is an UnexpectedAnswer, never a guess.
import type { CommandResult } from "./wrangler.ts";

/** wrangler answered in a shape this tool does not know (a wrangler upgrade changed it?). */
export class UnexpectedAnswer extends Error {
  override name = "UnexpectedAnswer";
}

/** A deployment: which versions serve, and how much each. */
export interface DeploymentState {
  readonly createdOn: string;
  readonly versions: ReadonlyArray<{ readonly versionId: string; readonly percent: number }>;
}

/** The names of the Worker's secrets, from `wrangler secret list --format json`. */
export function secretNames(stdout: string): string[] {
  const list = jsonIn(stdout, "wrangler secret list");
  if (!Array.isArray(list) || !list.every((s) => typeof s?.name === "string"))
    throw new UnexpectedAnswer(`wrangler secret list did not print a list of {"name":...}`);
  return list.map((s: { name: string }) => s.name);
}

/** The deployment serving now, from `wrangler deployments status --json`. */
export function deploymentStatus(stdout: string): DeploymentState {
  return deployment(jsonIn(stdout, "wrangler deployments status"), "wrangler deployments status");
}

/** The recent deployments, newest first, from `wrangler deployments list --json`. */
export function deploymentList(stdout: string): DeploymentState[] {
  const list = jsonIn(stdout, "wrangler deployments list");
  if (!Array.isArray(list)) throw new UnexpectedAnswer("wrangler deployments list did not print a list");
  return list.map((d) => deployment(d, "wrangler deployments list")).sort((a, b) => b.createdOn.localeCompare(a.createdOn));
}

/** The version one version serves all traffic in, or undefined when traffic is split. */
export function stableVersion(state: DeploymentState): string | undefined {
  return state.versions.length === 1 && state.versions[0]!.percent === 100 ? state.versions[0]!.versionId : undefined;
}

/**
 * What `wrangler rollback` with no version would pick: the newest deployment before the current
 * one that had a version at 100%.
 */
export function previousStableVersion(newestFirst: readonly DeploymentState[]): string | undefined {
  for (const state of newestFirst.slice(1)) {
    const whole = state.versions.find((v) => v.percent === 100);
    if (whole) return whole.versionId;
  }
  return undefined;
}

/**
 * The version a `versions upload` or `deploy` made: its output entry, else its
 * "Worker Version ID: ..." line.
 */
export function madeVersionId(result: CommandResult, type: "version-upload" | "deploy"): string | undefined {
  const entry = result.outputs.find((o) => o.type === type && typeof o.version_id === "string");
  if (entry) return entry.version_id as string;
  return /Worker Version ID: ([0-9a-f-]{36})/i.exec(result.stdout)?.[1];
}

/** True when wrangler refused to upload a version because a Durable Object migration is pending. */
export function pendingMigration(result: CommandResult): boolean {
  const failed = result.outputs.find((o) => o.type === "command-failed");
  const text = typeof failed?.message === "string" ? failed.message : `${result.stdout}\n${result.stderr}`;
  return /pending Durable Object migration/i.test(text);
}

/** The message of a failed wrangler command (its output entry, else the last lines it printed). */
export function failureMessage(result: CommandResult): string {
  const failed = result.outputs.find((o) => o.type === "command-failed");
  if (typeof failed?.message === "string") return failed.message;
  const lines = `${result.stderr}\n${result.stdout}`.split("\n").filter((l) => l.trim());
  return lines.slice(-3).join(" / ") || `exit status ${result.code}`;
}

function deployment(value: unknown, from: string): DeploymentState {
  const d = value as { created_on?: unknown; versions?: unknown };
  if (typeof d?.created_on !== "string" || !Array.isArray(d.versions))
    throw new UnexpectedAnswer(`${from} did not print a deployment ({"created_on":..., "versions":[...]})`);
  const versions = d.versions.map((v: { version_id?: unknown; percentage?: unknown }) => {
    if (typeof v?.version_id !== "string" || typeof v.percentage !== "number")
      throw new UnexpectedAnswer(`${from}: a version without version_id and percentage`);
    return { versionId: v.version_id, percent: v.percentage };
  });
  return { createdOn: d.created_on, versions };
}

/** The JSON a command printed, skipping anything wrangler printed before it (a warning line). */
function jsonIn(stdout: string, from: string): unknown {
  const start = stdout.search(/^[[{]/m);
  if (start === -1) throw new UnexpectedAnswer(`${from} printed no JSON`);
  try {
    return JSON.parse(stdout.slice(start));
  } catch {
    throw new UnexpectedAnswer(`${from} printed JSON this tool cannot read`);
  }
}
