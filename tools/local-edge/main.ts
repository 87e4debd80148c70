#!/usr/bin/env node
// npm start [-- wrangler dev options]: the gateway and the emulator Workers it binds as services
// (local-config.ts), served by one `wrangler dev` session on a private port behind the local edge
// (edge.ts) on 127.0.0.1:8787.
// `--port` and `--ip` choose where the edge listens, `--private-port` where wrangler dev does (it
// answers the edge only: local-edge-guard.ts); every other option goes to wrangler dev.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import net from "node:net";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { createInterface } from "node:readline";
import { LOCAL_EDGE_HEADER } from "../../src/gateway/local-edge-header.ts";
import { LOCAL_MOUNTS } from "../../src/gateway/routes.ts";
import { LOCAL_BINDINGS } from "../local-bindings.ts";
import { localSecret } from "../local-secret.ts";
import { createLocalEdge } from "./edge.ts";
import { localDevConfigs } from "./local-config.ts";
import { WranglerOutputFilter } from "./wrangler-output.ts";

const DEFAULT_PORT = 8787;
const DEFAULT_IP = "127.0.0.1";

/**
 * Splits our own --port/--ip (either `--port N` or `--port=N`) and --private-port (where wrangler
 * dev listens behind the edge; a free port when not given) from the options for wrangler.
 */
export function splitArguments(argv: readonly string[]): { port: number; ip: string; privatePort?: number; wrangler: string[] } {
  let port = DEFAULT_PORT;
  let ip = DEFAULT_IP;
  let privatePort: number | undefined;
  const wrangler: string[] = [];
  const portNumber = (flag: string, value: string) => {
    const n = Number(value);
    if (!Number.isInteger(n) || n < 0 || n > 65535) throw new Error(`${flag} must be a port number (got ${value})`);
    return n;
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.startsWith("--") && arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flag !== "--port" && flag !== "--ip" && flag !== "--private-port") {
      wrangler.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new Error(`${flag} needs a value`);
    if (flag === "--ip") ip = value;
    else if (flag === "--port") port = portNumber(flag, value);
    else privatePort = portNumber(flag, value);
  }
  return { port, ip, ...(privatePort !== undefined && { privatePort }), wrangler };
}

/**
 * Wrangler's noise that it lets us turn off: the update banner, the offline `Request.cf` download
 * (two stack traces without network), usage metrics, and the local trace store (invisible in the
 * terminal, and costly per request). A user's own setting of any of them wins.
 */
const QUIET_WRANGLER = {
  WRANGLER_HIDE_BANNER: "true",
  CLOUDFLARE_CF_FETCH_ENABLED: "false",
  WRANGLER_SEND_METRICS: "false",
  X_LOCAL_OBSERVABILITY: "false",
};

/**
 * wrangler dev's options with npm start's log level: `warn` unless the user chose one (an option
 * or WRANGLER_LOG). At wrangler's default, every request costs a log line through wrangler and this
 * process, a share of its throughput (docs/bench.md); the line and the gateway's decision log
 * come back with `npm start -- --log-level info`.
 */
export function withLogLevel(wranglerArgs: readonly string[], env: NodeJS.ProcessEnv = process.env): string[] {
  const chosen = env.WRANGLER_LOG !== undefined || wranglerArgs.some((a) => a === "--log-level" || a.startsWith("--log-level="));
  return chosen ? [...wranglerArgs] : [...wranglerArgs, "--log-level", "warn"];
}

/**
 * An agent server of the user's own (AGENT_SERVER_ORIGIN a URL) gets the host its clients called,
 * so the URLs it builds name the gateway (AGENT_SERVER_HOST=public; under npm start the local edge
 * plays Cloudflare's resolveOverride), unless the user chose AGENT_SERVER_HOST themselves.
 */
export function withPublicHost(wranglerArgs: readonly string[]): string[] {
  const origin = varOf(wranglerArgs, "AGENT_SERVER_ORIGIN");
  if (origin === undefined || origin === "service" || varOf(wranglerArgs, "AGENT_SERVER_HOST") !== undefined) return [...wranglerArgs];
  return [...wranglerArgs, "--var", "AGENT_SERVER_HOST:public"];
}

/** The region npm start runs (`--env us|eu`, as package.json passes it). */
export function regionOf(wranglerArgs: readonly string[]): string {
  const at = wranglerArgs.findIndex((a) => a === "--env" || a.startsWith("--env="));
  if (at === -1) return "us";
  return wranglerArgs[at]!.includes("=") ? wranglerArgs[at]!.split("=")[1]! : (wranglerArgs[at + 1] ?? "us");
}

/** The local admin host (LOCAL_BINDINGS.ADMIN_HOSTS): the admin API answers there only, on the edge's port. */
export const LOCAL_ADMIN_HOST = LOCAL_BINDINGS.ADMIN_HOSTS;

/**
 * The banner's line about the admin API, on its own origin (docs/admin.md): on (an ADMIN_TOKEN was
 * given, by `--var` or .dev.vars) or off, and how to turn it on. Undefined: not known (the probe
 * got no answer).
 */
export function adminLine(base: string, on: boolean | undefined): string {
  const admin = new URL(base);
  admin.hostname = LOCAL_ADMIN_HOST;
  const origin = admin.origin;
  if (on === undefined) return `  admin API      ${origin}/_tollgate/ (could not tell whether it is on)`;
  return on
    ? `  admin API      on: ${origin}/_tollgate/dashboard (login: any name, the ADMIN_TOKEN as password); docs/admin.md`
    : `  admin API      off (no ADMIN_TOKEN): npm start -- --var ADMIN_TOKEN:<16+ characters>, or ADMIN_TOKEN=... in .dev.vars; then ${origin}/_tollgate/dashboard`;
}

/**
 * Whether the gateway's admin API is on, asked on the admin host: without a token it answers 404,
 * with one 401 to a request that has none. (Anyone can tell the two apart; the probe learns
 * nothing secret, and sends no credential, so it never counts against the throttle.) Node's
 * fetch neither resolves *.localhost nor sends a Host of the caller's, hence node:http.
 */
export function adminApiIsOn(internal: URL, edgeSecret?: string): Promise<boolean | undefined> {
  return new Promise((resolve) => {
    const headers = { host: `${LOCAL_ADMIN_HOST}:${internal.port}`, ...(edgeSecret && { [LOCAL_EDGE_HEADER]: edgeSecret }) };
    const request = http.get({ host: internal.hostname, port: internal.port, path: "/_tollgate/rules", headers }, (res) => {
      res.resume();
      resolve(res.statusCode === 401 ? true : res.statusCode === 404 ? false : undefined);
    });
    request.on("error", () => resolve(undefined));
  });
}

/** The value the last `--var NAME:value` among wrangler's arguments gives NAME (wrangler keeps the last), if any. */
export function varOf(args: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  args.forEach((arg, i) => {
    const given = arg === "--var" ? args[i + 1] : arg.startsWith("--var=") ? arg.slice("--var=".length) : undefined;
    if (given?.startsWith(`${name}:`)) value = given.slice(name.length + 1);
  });
  return value;
}

/** What npm start prints once it answers: where each upstream is, and where to go next. */
export function banner(base: string, region: string, admin?: boolean, quiet = false, agentServerOrigin?: string): string {
  const mount = (name: string) => LOCAL_MOUNTS.find((m) => m.upstream === name)!;
  const agentServer = mount("agent-server");
  const own = agentServerOrigin !== undefined && agentServerOrigin !== "service";
  return [
    ``,
    `tollgate is ready on ${base}, enforcing the ${region.toUpperCase()} limits (rules/*.json).`,
    `  hosted API     ${base}/...   (echo Worker, bound as a service; the published table applies)`,
    `  control plane  ${base}${mount("control-plane").prefix}/...   (emulator Worker, bound as a service; client base URL ${base})`,
    own
      ? `  agent server   ${base}${agentServer.prefix}/...   (yours, at ${agentServerOrigin}; client base URL ${base}${agentServer.prefix})`
      : `  agent server   ${base}${agentServer.prefix}/...   (emulator Worker, bound as a service; client base URL ${base}${agentServer.prefix})`,
    ...(own
      ? []
      : [
          `  your own       npm start -- --var AGENT_SERVER_ORIGIN:http://127.0.0.1:2024 puts your agent server there instead of the emulator (docs/real-agent-server.md)`,
        ]),
    `  deployments    ${base}/deployments/<id>/...   (each deployed control-plane deployment's own agent server: its source_config.custom_url)`,
    `  try            curl -si ${base}/runs/stats -H 'x-api-key: demo'`,
    `  which rule     npm run explain -- GET /runs/stats -H 'x-api-key: demo'`,
    `  docs           docs/rules.md ("What the gateway refuses, and why"); Ctrl-C stops it`,
    `  client IP      set from your socket by this local edge, as Cloudflare's edge does in production`,
    ...(quiet ? [`  logs           warnings only; npm start -- --log-level info shows each request and the gateway's decision log`] : []),
    adminLine(base, admin),
    ``,
  ].join("\n");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/** True once something accepts TCP connections on the port (wrangler's server is up). */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

async function main(): Promise<void> {
  let options;
  try {
    options = splitArguments(process.argv.slice(2));
  } catch (error) {
    console.error(`npm start: ${(error as Error).message}`);
    process.exit(2);
  }
  const internal = options.privatePort ?? (await freePort());
  // The session's secret: the gateway answers only requests the edge stamps with it (the private
  // port would otherwise take a client-chosen CF-Connecting-IP: local-edge-guard.ts).
  const edgeSecret = randomBytes(32).toString("base64url");
  const wranglerArgs = withPublicHost(withLogLevel(options.wrangler));
  const quiet = wranglerArgs.some((a) => a === "--log-level") && !options.wrangler.some((a) => a === "--log-level" || a.startsWith("--log-level="));
  // wrangler exports only its API; its CLI is the package's declared bin, beside package.json.
  const wranglerBin = join(dirname(createRequire(import.meta.url).resolve("wrangler/package.json")), "bin", "wrangler.js");
  // The gateway serves nothing without an identity secret: this checkout's own, made on first run
  // in the .dev.vars file wrangler dev reads.
  localSecret(regionOf(options.wrangler));
  // The gateway and, in the same session, each emulator Worker it binds as a service.
  // Where the gateway reaches this edge, to send a request for an agent server's public host on to its origin.
  const edgeHost = options.ip === "0.0.0.0" || options.ip === "::" ? "127.0.0.1" : options.ip.includes(":") ? `[${options.ip}]` : options.ip;
  const configs = await localDevConfigs(regionOf(options.wrangler), { LOCAL_EDGE_SECRET: edgeSecret, LOCAL_EDGE_ORIGIN: `http://${edgeHost}:${options.port}` });
  const child = spawn(
    process.execPath,
    [
      wranglerBin,
      "dev",
      ...configs,
      "--show-interactive-dev-session=false",
      // The environment's routes name its deployed hosts: the gateway keeps seeing the local origin.
      "--infer-origin-from-routes=false",
      ...wranglerArgs,
      "--ip",
      "127.0.0.1",
      "--port",
      String(internal),
    ],
    { stdio: ["inherit", "pipe", "pipe"], env: { ...QUIET_WRANGLER, ...process.env } },
  );
  const filter = new WranglerOutputFilter(internal);
  for (const [from, to] of [
    [child.stdout, process.stdout],
    [child.stderr, process.stderr],
  ] as const) {
    createInterface({ input: from, crlfDelay: Infinity }).on("line", (line) => filter.keep(line) && to.write(`${line}\n`));
  }
  let exiting = false;
  child.on("exit", (code, signal) => {
    exiting = true;
    // This session's config copies (local-config.ts): the gateway's holds its edge secret.
    for (const path of configs.filter((arg) => arg.includes(".wrangler.local."))) rmSync(path, { force: true });
    process.exit(code ?? (signal ? 1 : 0));
  });
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));

  while (!exiting && !(await accepts(internal))) await sleep(200);
  const edge = createLocalEdge({ target: new URL(`http://127.0.0.1:${internal}`), secret: edgeSecret });
  edge.on("error", (error) => {
    console.error(`npm start: the local edge cannot listen on ${options.ip}:${options.port}: ${error.message}`);
    child.kill("SIGINT");
  });
  const admin = await adminApiIsOn(new URL(`http://127.0.0.1:${internal}`), edgeSecret);
  edge.listen(options.port, options.ip, () => {
    const host = options.ip.includes(":") ? `[${options.ip}]` : options.ip;
    console.log(banner(`http://${host}:${options.port}`, regionOf(options.wrangler), admin, quiet, varOf(options.wrangler, "AGENT_SERVER_ORIGIN")));
  });
}

if (import.meta.main) await main();
