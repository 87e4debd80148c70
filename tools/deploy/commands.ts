// The wrangler (and tsc) command lines of a deploy and a rollback, built in one place so the
// dry-run plan prints exactly what a real run executes. Each is the argument list after the
// wrangler command itself. Flags as wrangler 4.156 names them.
import type { Region } from "../../src/core/rules/schema.ts";

/** A version and the share of requests it serves. */
export type Traffic = ReadonlyArray<readonly [versionId: string, percent: number]>;

/** The typechecks `npm run typecheck` runs: the Worker, then the Node side. */
export const typecheckArgs: ReadonlyArray<readonly string[]> = [
  ["--noEmit", "-p", "tsconfig.json"],
  ["--noEmit", "-p", "tsconfig.node.json"],
];

/** The offline build `npm run build:<region>` makes (bundles and validates, uploads nothing). */
export const buildArgs = (region: Region) => ["deploy", "--dry-run", "--env", region, "--outdir", `dist/${region}`];

/** The names of the secrets set on the region's Worker, as JSON: `[{"name":..., "type":...}]`. */
export const secretListArgs = (region: Region) => ["secret", "list", "--env", region, "--format", "json"];

/** The deployment serving now, as JSON: `{"versions":[{"version_id":..., "percentage":...}], ...}`. */
export const deploymentStatusArgs = (region: Region) => ["deployments", "status", "--env", region, "--json"];

/** The region's recent deployments, oldest first, as JSON (for the rollback's target). */
export const deploymentListArgs = (region: Region) => ["deployments", "list", "--env", region, "--json"];

/** A new version, serving nothing yet. wrangler refuses it when a Durable Object migration is pending. */
export const versionsUploadArgs = (region: Region, message: string) => ["versions", "upload", "--env", region, "--message", message];

/** A deployment splitting traffic between versions, the new one first (Durable Objects keep their version as it grows). */
export const versionsDeployArgs = (region: Region, traffic: Traffic, message: string) => [
  "versions",
  "deploy",
  ...traffic.map(([id, percent]) => `${id}@${percent}%`),
  "--env",
  region,
  "--yes",
  "--message",
  message,
];

/** Applies the environment's routes and custom domains (`versions deploy` does not). */
export const triggersDeployArgs = (region: Region) => ["triggers", "deploy", "--env", region];

/** Upload and deploy at 100% in one step, applying pending migrations and the routes. */
export const fullDeployArgs = (region: Region, message: string) => ["deploy", "--env", region, "--message", message];

/** Back to one version at 100% (wrangler accepts changed secrets in a non-interactive run). */
export const rollbackArgs = (region: Region, versionId: string, message: string) => ["rollback", versionId, "--env", region, "--yes", "--message", message];

/** A command line as a shell would take it, for the plan and the log. */
export function shellLine(command: readonly string[]): string {
  return command.map((arg) => (/^[\w@%./:=<>,-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`)).join(" ");
}
