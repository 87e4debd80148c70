// Runs wrangler (or tsc) for the deploy: its output echoed, indented, as it comes, and collected;
// its structured results read from the ND-JSON file wrangler writes when WRANGLER_OUTPUT_FILE_PATH
// is set (`{"type":"version-upload","version_id":...}`, `{"type":"command-failed","message":...}`).
import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";

/** What a command did. */
export interface CommandResult {
  /** The exit status; a signal or a command that could not start counts as failure (-1). */
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** wrangler's output entries, in order (none from tsc, or a wrangler that wrote none). */
  readonly outputs: ReadonlyArray<Readonly<Record<string, unknown>>>;
}

/**
 * A command line from an environment variable such as TOLLGATE_WRANGLER ("npx wrangler"), split on
 * whitespace, or the default.
 */
export function commandFrom(value: string | undefined, fallback: readonly string[]): string[] {
  const words = (value ?? "").trim().split(/\s+/).filter(Boolean);
  return words.length > 0 ? words : [...fallback];
}

/**
 * Runs `command args` in `cwd`, stdin closed (so wrangler never prompts: it takes its documented
 * non-interactive defaults), each output line echoed through `echo`.
 */
export async function runCommand(command: readonly string[], args: readonly string[], cwd: string, echo: (line: string) => void): Promise<CommandResult> {
  const dir = await mkdtemp(join(tmpdir(), "tollgate-deploy-"));
  const outputFile = join(dir, "wrangler-output.ndjson");
  try {
    const child = spawn(command[0]!, [...command.slice(1), ...args], {
      cwd,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, WRANGLER_OUTPUT_FILE_PATH: outputFile, WRANGLER_HIDE_BANNER: process.env.WRANGLER_HIDE_BANNER ?? "true" },
    });
    const collected = { stdout: [] as string[], stderr: [] as string[] };
    const reading = (["stdout", "stderr"] as const).map(
      (stream) =>
        new Promise<void>((done) => {
          const lines = createInterface({ input: child[stream], crlfDelay: Infinity });
          lines.on("line", (line) => {
            collected[stream].push(line);
            echo(line);
          });
          lines.on("close", done);
        }),
    );
    const code = await new Promise<number>((done) => {
      child.on("error", (error) => {
        collected.stderr.push(`could not run ${command.join(" ")}: ${error.message}`);
        echo(`could not run ${command.join(" ")}: ${error.message}`);
        done(-1);
      });
      child.on("close", (status) => done(status ?? -1));
    });
    await Promise.all(reading);
    return { code, stdout: collected.stdout.join("\n"), stderr: collected.stderr.join("\n"), outputs: await readOutputs(outputFile) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function readOutputs(file: string): Promise<Array<Record<string, unknown>>> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    return [];
  }
  const entries: Array<Record<string, unknown>> = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    try {
      entries.push(JSON.parse(line));
    } catch {
      // A partial line (wrangler killed mid-write) says nothing reliable.
    }
  }
  return entries;
}
