// What the real-agent-server test files share: the real server and `npm start` in front of it,
// one of each per file (tools/real-agent-server), and how a result seen direct is compared with
// the same seen through the gateway.
import http from "node:http";
import { afterAll, beforeAll } from "vitest";
import { startGatewayInFront, type GatewayInFront, type GatewayOptions } from "../../../tools/real-agent-server/gateway.ts";
import { startRealAgentServer, type RealAgentServer } from "../../../tools/real-agent-server/server.ts";

/** The two ways to the same server: `direct` (its own URL) and `gateway` (npm start's /agent-server). */
export interface Both {
  readonly server: RealAgentServer;
  readonly gateway: GatewayInFront;
  readonly direct: string;
  readonly through: string;
}

/**
 * Starts one real agent server and one `npm start` in front of it for the calling file (both in
 * beforeAll, stopped in afterAll) on the file's ports. The returned function gives them to tests.
 */
export function realServerAndGateway(
  ports: { server: number; edge: number; private: number },
  options: Pick<GatewayOptions, "vars" | "region"> = {},
): () => Both {
  let both: Both | undefined;
  let server: RealAgentServer | undefined;
  let gateway: GatewayInFront | undefined;
  beforeAll(async () => {
    // Side by side: npm start needs the server's address, not the server, until a request comes.
    const starting = [
      startRealAgentServer({ port: ports.server }).then((started) => (server = started)),
      startGatewayInFront(`http://127.0.0.1:${ports.server}`, { port: ports.edge, privatePort: ports.private, ...options }).then(
        (started) => (gateway = started),
      ),
    ];
    const failed = (await Promise.allSettled(starting)).find((result) => result.status === "rejected");
    if (failed) {
      await gateway?.stop();
      await server?.stop();
      throw failed.reason;
    }
    if (!server || !gateway) throw new Error("unreachable: both started");
    both = { server, gateway, direct: server.url, through: gateway.agentServer };
    // One request each way first: the gateway's first answer pays for what it sets up once (its
    // counters' objects), which no test's timing should include.
    for (const base of [both.direct, both.through]) await (await fetch(`${base}/ok`)).arrayBuffer();
  }, 240_000);
  afterAll(async () => {
    await gateway?.stop();
    await server?.stop();
  }, 60_000);
  return () => both!;
}

// A UUID, or the 32 hex digits LangGraph names an interrupt with.
const ID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b[0-9a-f]{32}\b/gi;
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:?\d{2})?/g;

/**
 * A value with what differs from run to run made comparable: each id (a UUID, alone or inside a
 * string such as `run-<uuid>`, or an interrupt's) numbered by its first appearance, each time
 * (an ISO string, or a protocol event's `timestamp` number) `<time>`, and the server URL a run
 * records (`langgraph_api_url`, the same server either way) as `<server>`.
 * Everything else, including headers the server stored, is kept: that is what is compared.
 */
export function comparable(value: unknown, ids = new Map<string, string>()): unknown {
  if (typeof value === "string") {
    return value
      .replace(ID, (id) => {
        const key = id.toLowerCase();
        if (!ids.has(key)) ids.set(key, `<id${ids.size + 1}>`);
        return ids.get(key)!;
      })
      .replace(ISO_TIME, "<time>");
  }
  if (Array.isArray(value)) return value.map((item) => comparable(item, ids));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => [
        key,
        key === "langgraph_api_url" ? "<server>" : key === "timestamp" && typeof item === "number" ? "<time>" : comparable(item, ids),
      ]),
    );
  }
  return value;
}

/** Response headers but the gateway's own (`ratelimit*`) and those that differ per response (date). */
export function comparableHeaders(headers: Headers | http.IncomingHttpHeaders): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers).map(([k, v]) => [k, String(v)] as const);
  return Object.fromEntries(
    entries
      .filter(([name]) => !name.startsWith("ratelimit") && !["date", "keep-alive", "connection", "content-location"].includes(name))
      .sort(([a], [b]) => a.localeCompare(b)),
  );
}

/** A fresh API key: each test counts on a key of its own through the gateway (the server ignores it). */
export const freshKey = () => `real-agent-server-${Math.random().toString(36).slice(2)}`;

/** A user message as a run's input. */
export const say = (content: string) => ({ messages: [{ role: "user", content }] });

/** The contents of a state's messages. */
export const contents = (values: any): string[] => (values?.messages ?? []).map((m: { content: string }) => m.content);
