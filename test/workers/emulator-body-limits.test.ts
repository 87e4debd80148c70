// Every route of each emulator that may carry a body, under the bounds of the one body reader
// (emulators/shared/request-body.ts; issue 32, finding 2): a body nested one level past
// MAX_JSON_DEPTH, one nested 20,000 deep and one a byte over MAX_BODY_BYTES. Runs in both emulator
// projects, each on its own emulator's routes (read from its Hono app, so a new route is covered
// without touching this file). A route that reads JSON answers in its protocol's shape: FastAPI's
// `{"detail": ...}` (400, or 413 for the size), a JSON-RPC parse error (-32700) on MCP and A2A; a
// route that reads no body answers as it would without one. Never a 5xx.
import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { MAX_JSON_DEPTH } from "../../emulators/shared/json-depth.ts";
import { MAX_BODY_BYTES } from "../../emulators/shared/request-body.ts";
import { nestedJson } from "../support/nested-json.ts";
import { THIS_EMULATOR } from "./support/emulator-env.ts";
import { prepareWorkspace } from "./support/emulator-seed.ts";
import { emulatorRoutes, fillPath, type EmulatorRoute } from "./support/emulator-routes.ts";

/**
 * The routes that carry a body but read none: the real servers take their input from the path
 * and query alone, and ignore any body (FastAPI reads a body only for a declared body parameter).
 */
const READS_NO_BODY = new Set([
  // agent server
  "DELETE /assistants/:assistant_id",
  "DELETE /threads/:thread_id",
  "POST /threads/:thread_id/copy",
  "DELETE /threads/:thread_id/runs/:run_id",
  "POST /threads/:thread_id/runs/:run_id/cancel",
  "DELETE /runs/crons/:cron_id",
  "DELETE /mcp",
  "DELETE /mcp/",
  // control plane
  "DELETE /v2/deployments",
  "DELETE /v2/deployments/:deployment_id",
  "POST /v2/deployments/:deployment_id/revisions/:revision_id/redeploy",
  "DELETE /v2/listeners/:listener_id",
  "DELETE /v2/sandboxes/templates/:template_id",
  "DELETE /v2/auth/providers/:provider_id",
  "DELETE /v2/auth/tokens",
  "DELETE /v2/auth/tokens/:token_id",
  "DELETE /v2/auth/tokens/workspace/slack",
  "DELETE /v2/auth/agents/:agent_id/connections/:connection_id",
]);

/** JSON-RPC endpoints: their refusals carry the JSON-RPC error object beside `detail`. */
const JSON_RPC = (route: EmulatorRoute) => route.path.startsWith("/mcp") || route.path.startsWith("/a2a/");

/**
 * Protocol v2 (the "protocol-v2" work, protocols/v2/routes.ts; the same reader): the document
 * gives these operations one refusal, 400, so every unreadable body is a 400 there, a
 * ProtocolError for a command and `{"detail"}` for the event stream.
 */
const PROTOCOL_V2_COMMAND = "POST /threads/:thread_id/commands";
const PROTOCOL_V2_STREAM = "POST /threads/:thread_id/stream/events";

const PARSE_ERROR = "There was an error parsing the body";
const workspaceId = crypto.randomUUID();

/** A path parameter that passes every emulator's path validation, so the body is what is judged. */
const paramValue = (name: string) => ({ assistant_id: "agent", kind: "github" })[name] ?? (name.endsWith("_id") ? crypto.randomUUID() : "x");

let clients = 0;
function requestTo(route: EmulatorRoute, body: Uint8Array): Request {
  const path = fillPath(route, Object.fromEntries(route.params.map((name) => [name, paramValue(name)])));
  clients++;
  const headers = new Headers({
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "cf-connecting-ip": `10.9.${(clients >> 8) & 255}.${clients & 255}`,
    "x-api-key": `limits-${crypto.randomUUID()}`,
  });
  // The key is the credential, X-Tenant-Id only chooses among its workspaces (issue 32, finding 3):
  // each fresh key uses its own workspace.
  return new Request(`https://emulator.test${path}`, { method: route.method, headers, body });
}

const encode = (text: string) => new TextEncoder().encode(text);
const BODIES = [
  { name: `nested ${MAX_JSON_DEPTH + 1} levels`, status: 400, bytes: () => encode(nestedJson(MAX_JSON_DEPTH + 1)) },
  { name: "nested 20000 levels", status: 400, bytes: () => encode(nestedJson(20_000)) },
  // A JSON string one byte over the bound: valid JSON, refused for its size alone.
  { name: `${MAX_BODY_BYTES + 1} bytes`, status: 413, bytes: () => encode(`{"n":"${"x".repeat(MAX_BODY_BYTES - 7)}"}`) },
] as const;

beforeAll(async () => {
  await prepareWorkspace(workspaceId);
});

describe(`${THIS_EMULATOR}: every route that may carry a body, under the body reader's bounds`, () => {
  const routes = emulatorRoutes().filter((route) => route.emulator === THIS_EMULATOR && !["GET", "HEAD"].includes(route.method));

  it("are this project's emulator's, and each one listed as reading no body is still a route", () => {
    expect(routes.length).toBeGreaterThan(5);
    const names = new Set(emulatorRoutes().map((route) => `${route.method} ${route.path}`));
    const ours = [...READS_NO_BODY].filter((name) => name.includes(" /v2/") === (THIS_EMULATOR === "control-plane"));
    for (const name of ours) expect(names, name).toContain(name);
  });

  it("every body-size check counts the bytes: the oversized body really is one byte over", () => {
    expect(BODIES[2].bytes().byteLength).toBe(MAX_BODY_BYTES + 1);
  });

  describe.each(BODIES)("a body $name", ({ status, bytes }) => {
    const body = bytes();
    it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))("%s", async (name, route) => {
      const res = await exports.default.fetch(requestTo(route, body));
      const text = await res.text();
      const where = `${name} -> ${res.status} ${text.slice(0, 300)}`;
      expect(res.status, where).toBeLessThan(500);
      const answer = JSON.parse(text) as { detail?: unknown; error?: { code: number } | string };
      if (READS_NO_BODY.has(name)) {
        if (res.status >= 400) expect(answer, where).toHaveProperty("detail");
        return;
      }
      if (name === PROTOCOL_V2_COMMAND || name === PROTOCOL_V2_STREAM) {
        expect(res.status, where).toBe(400);
        if (name === PROTOCOL_V2_COMMAND) expect(answer, where).toMatchObject({ type: "error", id: null, error: "invalid_argument" });
        else expect(answer, where).toHaveProperty("detail");
        return;
      }
      expect(res.status, where).toBe(status);
      if (JSON_RPC(route)) expect(answer.error, where).toMatchObject({ code: -32700 });
      else expect(answer.detail, where).toEqual(status === 400 ? PARSE_ERROR : expect.stringMatching(/^Request body too large/));
    });
  });
});
