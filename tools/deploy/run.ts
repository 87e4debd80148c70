// What a deploy or a rollback runs with: the region's configuration, the commands, where its
// lines go, and how it waits (injected, so tests wait for nothing).
import type { Deployment } from "./configuration.ts";
import type { Environment } from "./environment.ts";
import { probe, type ProbeResult } from "./probe.ts";
import { shellLine } from "./commands.ts";
import { runCommand, type CommandResult } from "./wrangler.ts";

export interface Run {
  readonly environment: Environment;
  readonly deployment: Deployment;
  /** The wrangler command (TOLLGATE_WRANGLER, default `wrangler`). */
  readonly wrangler: readonly string[];
  /** The tsc command (TOLLGATE_TSC, default `tsc`). */
  readonly tsc: readonly string[];
  /** TOLLGATE_ADMIN_TOKEN, sent by the probe. */
  readonly token: string | undefined;
  readonly out: (line: string) => void;
  readonly sleep: (ms: number) => Promise<void>;
}

/** Prints the command line, runs it in the repository, its output indented below. */
export async function execute(run: Run, command: readonly string[], args: readonly string[]): Promise<CommandResult> {
  run.out(`$ ${shellLine([...command, ...args])}`);
  return runCommand(command, args, run.environment.root, (line) => run.out(`    ${line}`));
}

/** Probes `url`, pinned to a version of this region's Worker or not, and prints the verdict. */
export async function probeHealth(
  run: Run,
  url: string,
  settings: { attempts: number; intervalSeconds: number },
  pinned: string | undefined,
): Promise<ProbeResult> {
  const result = await probe(
    {
      url,
      token: run.token,
      pin: pinned ? { worker: run.environment.worker, versionId: pinned } : undefined,
      attempts: settings.attempts,
      intervalMs: settings.intervalSeconds * 1000,
    },
    run.sleep,
  );
  run.out(`probe ${url}${pinned ? ` pinned to ${pinned}` : ""}: ${result.healthy ? "healthy" : "UNHEALTHY"}, ${result.detail}`);
  return result;
}
