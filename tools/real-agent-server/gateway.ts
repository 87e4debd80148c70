// `npm start` in front of an agent server of one's own, as a user runs it:
// `npm start -- --port P --private-port Q --var AGENT_SERVER_ORIGIN:<origin>`. The agent server is
// then at http://127.0.0.1:P/agent-server. Started in a process group of its own and stopped whole.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { endGroup, freePort, SERVER_PROJECT } from "./server.ts";

const REPO_ROOT = resolve(SERVER_PROJECT, "../..");

/** A running `npm start` in front of an agent server. */
export interface GatewayInFront {
  /** The local edge's origin, e.g. `http://127.0.0.1:19701`. */
  readonly base: string;
  /** The agent server through the gateway: the base URL an official client is given. */
  readonly agentServer: string;
  /** host:port of the local edge. */
  readonly edge: string;
  readonly privatePort: number;
  /** From spawn until npm start said it was ready. */
  readonly startMs: number;
  /** What npm start printed until it was ready. */
  readonly startup: string;
  stop(): Promise<void>;
}

export interface GatewayOptions {
  /** The local edge's port (a free one when not given) and wrangler dev's behind it. */
  readonly port?: number;
  readonly privatePort?: number;
  readonly region?: "us" | "eu";
  /** More `--var NAME:value` settings (e.g. `UPSTREAM_TIMEOUT_MS`). */
  readonly vars?: Readonly<Record<string, string>>;
  readonly readyTimeoutMs?: number;
}

/** The arguments after `npm start --`: the ports, wrangler's state directory and the settings. */
export function npmStartArguments(origin: string, port: number, privatePort: number, state: string, vars: Readonly<Record<string, string>> = {}): string[] {
  const settings = { AGENT_SERVER_ORIGIN: origin, ...vars };
  return [
    "--port",
    String(port),
    "--private-port",
    String(privatePort),
    "--persist-to",
    state,
    ...Object.entries(settings).flatMap(([name, value]) => ["--var", `${name}:${value}`]),
  ];
}

/**
 * Starts `npm start` (or `npm run start:eu`) with `AGENT_SERVER_ORIGIN` set to `origin` and a
 * fresh state directory, and resolves once it says it is ready.
 *
 * @example
 * const server = await startRealAgentServer();
 * const gateway = await startGatewayInFront(server.url, { port: 19701, privatePort: 19702 });
 * const client = new Client({ apiUrl: gateway.agentServer });
 * // ...
 * await gateway.stop();
 * await server.stop();
 */
export async function startGatewayInFront(origin: string, options: GatewayOptions = {}): Promise<GatewayInFront> {
  const port = options.port ?? (await freePort());
  const privatePort = options.privatePort ?? (await freePort());
  const state = mkdtempSync(join(tmpdir(), "tollgate-real-agent-server-gateway-"));
  const script = options.region === "eu" ? ["run", "start:eu"] : ["start"];
  const began = performance.now();
  const child = spawn("npm", [...script, "--", ...npmStartArguments(origin, port, privatePort, state, options.vars)], {
    cwd: REPO_ROOT,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const edge = `127.0.0.1:${port}`;
  let output = "";
  const stop = async () => {
    await endGroup(child);
    rmSync(state, { recursive: true, force: true });
  };
  try {
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(
        () => fail(new Error(`npm start was not ready within ${options.readyTimeoutMs ?? 180_000} ms:\n${output}`)),
        options.readyTimeoutMs ?? 180_000,
      );
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes(`tollgate is ready on http://${edge}`)) {
          clearTimeout(timer);
          ready();
        }
      };
      child.stdout!.on("data", read);
      child.stderr!.on("data", read);
      child.once("exit", (code) => (clearTimeout(timer), fail(new Error(`npm start exited (${code}) before it was ready:\n${output}`))));
    });
  } catch (error) {
    await stop();
    throw error;
  }
  const base = `http://${edge}`;
  return { base, agentServer: `${base}/agent-server`, edge, privatePort, startMs: Math.round(performance.now() - began), startup: output, stop };
}
