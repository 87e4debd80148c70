// The open-source agent server (@langchain/langgraph-api, served by `langgraphjs dev` from
// @langchain/langgraph-cli) with this folder's graphs, started offline on a loopback port and
// stopped with its whole process group. Tests start one per file; `main.ts` is the user's command.
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";

/** This folder: langgraph.json, the graphs, the custom routes and the UI. */
export const SERVER_PROJECT = dirname(fileURLToPath(import.meta.url));

/**
 * What keeps the server and its CLI off the network: no LangSmith tracing (which would post every
 * run), no CLI analytics (a POST per command), no browser opened on the Studio page. A user's own
 * setting of any of them wins in `main.ts`; tests set them whatever the environment says.
 */
export const OFFLINE_ENV: Readonly<Record<string, string>> = {
  LANGGRAPH_CLI_NO_ANALYTICS: "1",
  LANGSMITH_TRACING: "false",
  LANGSMITH_TRACING_V2: "false",
  LANGCHAIN_TRACING: "false",
  LANGCHAIN_TRACING_V2: "false",
  BROWSER: "none",
};

/** The CLI's script (its package's declared bin). */
export function cliPath(): string {
  const pkg = createRequire(import.meta.url).resolve("@langchain/langgraph-cli/package.json");
  return join(dirname(pkg), "dist", "cli", "cli.mjs");
}

/** The arguments of `langgraphjs dev` for a server on host:port from a config file, without a browser, a reload or a Studio host lookup. */
export function devArguments(config: string, host: string, port: number, reload = false): string[] {
  return [
    "dev",
    "--config",
    config,
    "--host",
    host,
    "--port",
    String(port),
    "--no-browser",
    ...(reload ? [] : ["--no-reload"]),
    // Named, so the CLI does not derive the Studio's host from LangSmith's settings.
    "--studio-url",
    `http://${host}:${port}`,
  ];
}

/**
 * A copy of langgraph.json in a fresh directory, its graphs and routes named in this folder,
 * so a server keeps its threads, runs and store (`.langgraph_api/`, which the server writes beside
 * its config) apart from every other and from a user's. The UI must sit below the project's
 * directory (the CLI refuses a path above it): it is copied there.
 */
export function freshProject(): string {
  const dir = mkdtempSync(join(tmpdir(), "tollgate-real-agent-server-"));
  const config = JSON.parse(readFileSync(join(SERVER_PROJECT, "langgraph.json"), "utf8")) as {
    graphs: Record<string, string>;
    http?: { app?: string };
    ui?: Record<string, string>;
  };
  // Relative to the new directory: the server joins a graph's path to its project's, absolute or not.
  const absolute = (spec: string) => {
    const [file, symbol] = spec.split(":");
    return `${relative(dir, resolve(SERVER_PROJECT, file!))}${symbol ? `:${symbol}` : ""}`;
  };
  config.graphs = Object.fromEntries(Object.entries(config.graphs).map(([id, spec]) => [id, absolute(spec)]));
  if (config.http?.app) config.http.app = absolute(config.http.app);
  for (const ui of Object.values(config.ui ?? {})) {
    mkdirSync(dirname(join(dir, ui)), { recursive: true });
    copyFileSync(join(SERVER_PROJECT, ui), join(dir, ui));
  }
  // The CLI adds `.langgraph_api` to the project's .gitignore when it is not there yet.
  writeFileSync(join(dir, ".gitignore"), ".langgraph_api\n");
  writeFileSync(join(dir, "langgraph.json"), JSON.stringify(config, null, 2));
  return dir;
}

/** A free port on 127.0.0.1 (the kernel's pick). */
export function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = net.createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => done(port));
    });
  });
}

/** A running real agent server. */
export interface RealAgentServer {
  /** Its base URL, e.g. `http://127.0.0.1:19700`: what a client or `AGENT_SERVER_ORIGIN` is given. */
  readonly url: string;
  readonly port: number;
  /** From spawn until `GET /ok` answered 200. */
  readonly startMs: number;
  /** What the CLI and the server printed so far. */
  output(): string;
  /** Ends the whole process group (the CLI, tsx, the server) and removes its state. */
  stop(): Promise<void>;
}

export interface StartOptions {
  /** A port of the caller's range; a free one when not given. */
  readonly port?: number;
  /** How long to wait for `GET /ok` (default 120 s: a busy machine starts tsx slowly). */
  readonly readyTimeoutMs?: number;
}

/**
 * Starts the real agent server with this folder's graphs (`agent`, `approval`, `slow`), custom
 * routes (`GET /chunks`, `/echo-request/*`) and UI (`POST /ui/agent`) on 127.0.0.1, fresh state,
 * offline, and resolves once `GET /ok` answers 200.
 *
 * @example
 * const server = await startRealAgentServer({ port: 19700 });
 * const client = new Client({ apiUrl: server.url });
 * // ...
 * await server.stop();
 */
export async function startRealAgentServer(options: StartOptions = {}): Promise<RealAgentServer> {
  const port = options.port ?? (await freePort());
  // Another server on the port would answer the readiness check in this one's place.
  if (!(await isFree(port))) throw new Error(`port ${port} is taken: the agent server needs a port of its own`);
  const project = freshProject();
  const url = `http://127.0.0.1:${port}`;
  const began = performance.now();
  const child = spawn(process.execPath, [cliPath(), ...devArguments(join(project, "langgraph.json"), "127.0.0.1", port)], {
    cwd: project,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...OFFLINE_ENV, NO_COLOR: "1" },
  });
  let printed = "";
  child.stdout!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (printed += chunk.toString()));
  const stop = async () => {
    await endGroup(child);
    rmSync(project, { recursive: true, force: true });
  };
  try {
    await answersOk(url, child, options.readyTimeoutMs ?? 120_000, () => printed);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, port, startMs: Math.round(performance.now() - began), output: () => printed, stop };
}

/** Whether nothing listens on 127.0.0.1:port (a listen there succeeds). */
export function isFree(port: number): Promise<boolean> {
  return new Promise((done) => {
    const probe = net.createServer();
    probe.once("error", () => done(false));
    probe.listen(port, "127.0.0.1", () => probe.close(() => done(true)));
  });
}

/**
 * Waits until this server said it runs on the port and `GET <url>/ok` answers 200; rejects with
 * what it printed if the process ends or the time runs out.
 */
async function answersOk(url: string, child: ChildProcess, timeoutMs: number, printed: () => string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let exited = false;
  child.once("exit", () => (exited = true));
  while (performance.now() < deadline) {
    if (exited) throw new Error(`the agent server exited before it answered:\n${printed()}`);
    const running = printed().includes(`Server running at ${new URL(url).host}`);
    const ok =
      running &&
      (await fetch(`${url}/ok`, { signal: AbortSignal.timeout(2_000) }).then(
        async (res) => (await res.arrayBuffer(), res.status === 200),
        () => false,
      ));
    if (ok) return;
    await sleep(50);
  }
  throw new Error(`the agent server did not answer GET ${url}/ok within ${timeoutMs} ms:\n${printed()}`);
}

/** SIGTERM to the group (the server flushes its state on it), SIGKILL after 5 s, and waits until no process of it is left. */
export async function endGroup(child: ChildProcess): Promise<void> {
  const pgid = child.pid;
  if (pgid === undefined) return;
  if (child.exitCode === null && child.signalCode === null) {
    const exited = once(child, "exit");
    signalGroup(pgid, "SIGTERM");
    await exited;
  } else signalGroup(pgid, "SIGTERM");
  const deadline = performance.now() + 5_000;
  while (groupAlive(pgid)) {
    if (performance.now() > deadline) signalGroup(pgid, "SIGKILL");
    await sleep(50);
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is gone already.
  }
}

/** Whether any process of the group is still running (signal 0 only asks). */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}
