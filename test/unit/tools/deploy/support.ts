// The deploy command against the stand-in wrangler, a local health endpoint and a fork's
// configuration in a temporary directory: in the test's own process (runTool), or run as a user
// runs it (spawnTool), once per behaviour of the command line itself.
import { execFile } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { deployCommand } from "../../../../tools/deploy/command.ts";

const REPOSITORY = resolve(import.meta.dirname, "../../../..");
const STAND_IN = join(REPOSITORY, "test/fixtures/deploy/wrangler-stand-in.mjs");

export const OLD = "11111111-1111-4111-8111-111111111111";
export const NEW = "22222222-2222-4222-8222-222222222222";
export const OLDER = "33333333-3333-4333-8333-333333333333";

/** wrangler's answers when everything is in order: both secrets set, OLD at 100%, NEW uploaded. */
export function healthyScenario(): Record<string, unknown> {
  return {
    "secret list": {
      stdout: JSON.stringify(
        [
          { name: "IDENTITY_HMAC_SECRET", type: "secret_text" },
          { name: "ADMIN_TOKEN", type: "secret_text" },
        ],
        null,
        "  ",
      ),
    },
    "deployments status": { stdout: JSON.stringify(deployment("2026-11-20T10:00:00.000Z", [[OLD, 100]])) },
    "versions upload": {
      stdout: `Total Upload: 612.30 KiB / gzip: 120.02 KiB\nUploaded tollgate-us (2.31 sec)\nWorker Version ID: ${NEW}`,
      output: { type: "version-upload", version: 1, worker_name: "tollgate-us", version_id: NEW },
    },
    "deployments list": {
      stdout: JSON.stringify([
        deployment("2026-11-18T10:00:00.000Z", [[OLDER, 100]]),
        deployment("2026-11-20T10:00:00.000Z", [[OLD, 100]]),
        deployment("2026-11-21T10:00:00.000Z", [
          [NEW, 10],
          [OLD, 90],
        ]),
        deployment("2026-11-21T11:00:00.000Z", [[NEW, 100]]),
      ]),
    },
  };
}

function deployment(createdOn: string, versions: Array<[string, number]>) {
  return {
    id: `d-${createdOn}`,
    source: "wrangler",
    strategy: "percentage",
    author_email: "ops@tollgate-fork.net",
    created_on: createdOn,
    annotations: {},
    versions: versions.map(([version_id, percentage]) => ({ version_id, percentage })),
  };
}

/** A fork's checkout: the repository's wrangler.toml with its example names replaced, and its rules. */
export function forkCheckout(edit: (toml: string) => string = (t) => t): string {
  const root = mkdtempSync(join(tmpdir(), "tollgate-fork-"));
  writeFileSync(join(root, "wrangler.toml"), edit(readFileSync(join(REPOSITORY, "wrangler.toml"), "utf8").replaceAll("example.com", "tollgate-fork.net")));
  cpSync(join(REPOSITORY, "rules"), join(root, "rules"), { recursive: true });
  return root;
}

/** A health endpoint whose answer the test decides per request; it records each request's headers. */
export async function healthEndpoint(answer: (headers: IncomingHttpHeaders) => { status: number; body: unknown }) {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    const { status, body } = answer(req.headers);
    res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/_tollgate/health`, seen, close: () => new Promise<void>((done) => server.close(() => done())) };
}

export interface Outcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** Every call the stand-in received, in order (tsc's as ["tsc", ...]). */
  readonly calls: string[][];
}

interface ToolOptions {
  readonly scenario?: Record<string, unknown>;
  readonly env?: Record<string, string>;
}

/** Runs the command (deployCommand) in this process, with the stand-in as wrangler and tsc. */
export function runTool(args: readonly string[], options: ToolOptions = {}): Promise<Outcome> {
  return withStandIn(options, async (env) => {
    const stdout: string[] = [];
    const stderr: string[] = [];
    const code = await deployCommand(args, env, { out: (line) => stdout.push(line), err: (line) => stderr.push(line) });
    return { code, stdout: lines(stdout), stderr: lines(stderr) };
  });
}

/** Runs `node tools/deploy/main.ts <args>` as a user runs it, with the stand-in as wrangler and tsc. */
export function spawnTool(args: readonly string[], options: ToolOptions = {}): Promise<Outcome> {
  return withStandIn(
    options,
    (env) =>
      new Promise<Omit<Outcome, "calls">>((done) => {
        execFile(
          process.execPath,
          [join(REPOSITORY, "tools/deploy/main.ts"), ...args],
          { cwd: REPOSITORY, env: { ...process.env, ...env } },
          (error, stdout, stderr) => done({ code: error ? Number(error.code ?? -1) : 0, stdout, stderr }),
        );
      }),
  );
}

const lines = (list: readonly string[]) => list.map((line) => `${line}\n`).join("");

/** The stand-in's directory (the scenario it answers from, the calls it records) around one run. */
async function withStandIn(options: ToolOptions, run: (env: Record<string, string>) => Promise<Omit<Outcome, "calls">>): Promise<Outcome> {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-stand-in-"));
  const log = join(dir, "calls.ndjson");
  writeFileSync(join(dir, "scenario.json"), JSON.stringify(options.scenario ?? healthyScenario()));
  try {
    const outcome = await run({
      TOLLGATE_WRANGLER: `${process.execPath} ${STAND_IN} ${dir}`,
      TOLLGATE_TSC: `${process.execPath} ${STAND_IN} ${dir} tsc`,
      TOLLGATE_ADMIN_TOKEN: "",
      ...options.env,
    });
    const calls = existsSync(log)
      ? readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as string[])
      : [];
    return { ...outcome, calls };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The calls a deploy makes before it uploads: typecheck, build, secrets. */
export const CHECK_CALLS = (region: string) => [
  ["tsc", "--noEmit", "-p", "tsconfig.json"],
  ["tsc", "--noEmit", "-p", "tsconfig.node.json"],
  ["deploy", "--dry-run", "--env", region, "--outdir", `dist/${region}`],
  ["secret", "list", "--env", region, "--format", "json"],
];

/** `wrangler versions deploy` as the tool calls it. */
export const versionsDeploy = (region: string, traffic: string[], message: string) => [
  "versions",
  "deploy",
  ...traffic,
  "--env",
  region,
  "--yes",
  "--message",
  message,
];
