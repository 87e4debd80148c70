#!/usr/bin/env node
// npx node tools/real-agent-server/main.ts [--port 2024] [--gateway-port 8787]: the open-source
// agent server with this folder's graphs, offline, on 127.0.0.1; with --gateway-port, `npm start`
// in front of it too. Ctrl-C stops both.
import { startGatewayInFront } from "./gateway.ts";
import { startRealAgentServer } from "./server.ts";

/** `--port N` / `--gateway-port N` (either `--flag N` or `--flag=N`). */
export function parseArguments(argv: readonly string[]): { port: number; gatewayPort?: number } {
  const read = (flag: string): number | undefined => {
    const at = argv.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (at === -1) return undefined;
    const value = argv[at]!.includes("=") ? argv[at]!.slice(flag.length + 1) : argv[at + 1];
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0 || n > 65535) throw new Error(`${flag} must be a port number (got ${value})`);
    return n;
  };
  const unknown = argv.filter((a, i) => a.startsWith("--") && !/^--(port|gateway-port)(=|$)/.test(a) && !/^--(port|gateway-port)$/.test(argv[i - 1] ?? ""));
  if (unknown.length) throw new Error(`unknown option ${unknown[0]} (takes --port and --gateway-port)`);
  const gatewayPort = read("--gateway-port");
  return { port: read("--port") ?? 2024, ...(gatewayPort !== undefined && { gatewayPort }) };
}

async function main(): Promise<void> {
  let options;
  try {
    options = parseArguments(process.argv.slice(2));
  } catch (error) {
    console.error(`real-agent-server: ${(error as Error).message}`);
    process.exit(2);
  }
  const server = await startRealAgentServer({ port: options.port });
  console.log(`The open-source agent server (graphs agent, approval, slow) answers on ${server.url} (started in ${server.startMs} ms, offline).`);
  const gateway = options.gatewayPort === undefined ? undefined : await startGatewayInFront(server.url, { port: options.gatewayPort });
  console.log(
    gateway
      ? `tollgate fronts it on ${gateway.base} (npm start ready in ${gateway.startMs} ms): client base URL ${gateway.agentServer}`
      : `Put tollgate in front: npm start -- --var AGENT_SERVER_ORIGIN:${server.url} (client base URL http://127.0.0.1:8787/agent-server)`,
  );
  const stop = async () => {
    await gateway?.stop();
    await server.stop();
    process.exit(0);
  };
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void stop());
}

if (import.meta.main) await main();
