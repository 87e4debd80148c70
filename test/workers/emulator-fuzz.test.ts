// Fuzzes every route of each emulator, in its own project (issue 8: "Emulators never 5xx on bad
// input"): malformed, deeply nested and huge bodies, wrongly typed fields, wrong or missing
// content types, odd path parameters, queries and headers. Every answer must be below 500 (no 501
// either: every operation is emulated), every 4xx FastAPI-shaped JSON with a `detail` (protocol
// v2's malformed command: the ProtocolError its document gives), and a refused request must leave
// storage as it was. The body bounds of every body-carrying route: emulator-body-limits.test.ts.
import { exports } from "cloudflare:workers";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { emulatorRoutes, type EmulatorRoute } from "./support/emulator-routes.ts";
import { clockAhead, prepareWorkspace, ringAlarms, seedMissing } from "./support/emulator-seed.ts";
import { snapshotEmulators, storedData, type EmulatorState } from "./support/emulator-state.ts";
import { requestPlan, type RequestPlan } from "./support/fuzz.ts";
import { buildRequest } from "./support/fuzz-request.ts";
import { THIS_EMULATOR } from "./support/emulator-env.ts";
import type { AgentServerState } from "../../emulators/agent-server/state-object.ts";

/** Requests per route: enough draws per route to reach its error paths, few enough for CI. */
const RUNS_PER_ROUTE = 20;
const SEED = 20_261_123;

/** A fixed seed of each route's own (from its name), so routes do not all get the same plans. */
const seedOf = (route: EmulatorRoute) => [...`${route.method} ${route.path}`].reduce((hash, c) => Math.imul(hash ^ c.charCodeAt(0), 16_777_619), SEED) | 0;

const workspaceId = crypto.randomUUID();

beforeAll(async () => {
  await prepareWorkspace(workspaceId);
  await seedMissing(await snapshotEmulators(workspaceId), workspaceId);
});

describe(`${THIS_EMULATOR} routes under fuzzing`, () => {
  const routes = emulatorRoutes().filter((route) => route.emulator === THIS_EMULATOR);

  it("are this project's emulator's, every one of them", () => {
    expect(routes.length).toBeGreaterThan(5);
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    "%s: never 5xx, 4xx as {detail}, refusals change nothing",
    async (_name, route) => {
      await fc.assert(
        fc.asyncProperty(requestPlan(route.params.length), (plan) => checkOne(route, plan)),
        // No shrinking: stored state moves on between attempts, and a plan already reads plainly.
        { seed: seedOf(route), numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
    },
    120_000,
  );
});

async function checkOne(route: EmulatorRoute, plan: RequestPlan): Promise<void> {
  // Both emulators at rest (revisions at their end state, no run in flight, no cron to fire), so
  // only the request can change what is stored; a kind an earlier request deleted is seeded again
  // (and brought to rest). One snapshot per request when nothing is missing: each reads every table.
  let before = await atRest();
  if (await seedMissing(before, workspaceId)) before = await atRest();

  const request = buildRequest(route, plan, { workspaceId, state: before });
  const res = await exports.default.fetch(request);
  // Read to the end: a run's stream finishes (and saves the run) before it closes. A thread's own
  // stream stays open (and may stay silent) for the runs to come, as the real server's does: the
  // client leaves once the stream has started.
  const open = route.path === THREAD_STREAM && res.status === 200 && res.headers.get("content-type")?.startsWith("text/event-stream");
  const text = open ? (await res.body?.cancel(), "") : await res.text();
  const where = `${request.method} ${request.url} -> ${res.status} ${text.slice(0, 300)}`;

  expect(res.status, where).toBeLessThan(500);
  if (res.status === 400 && route.path === PROTOCOL_COMMANDS) expectProtocolError(text, where);
  else if (res.status >= 400) expectDetail(text, where);
  if (res.status >= 300) {
    expect(storedData(await snapshotEmulators(workspaceId)), `${where}: a refused request changed stored state`).toEqual(storedData(before));
  }
}

/** The agent server's stream of a thread (GET /threads/{thread_id}/stream): open until the client leaves. */
const THREAD_STREAM = "/threads/:thread_id/stream";

/**
 * Protocol v2's command endpoint, whose 400 (a malformed envelope) the 2026 document types as a
 * ProtocolError, `{type: "error", id, error, message}`, not FastAPI's `{detail}`.
 */
const PROTOCOL_COMMANDS = "/threads/:thread_id/commands";

function expectProtocolError(text: string, where: string): void {
  let body: unknown;
  expect(() => (body = JSON.parse(text)), `${where}: not JSON`).not.toThrow();
  expect(body, where).toMatchObject({ type: "error", error: expect.any(String), message: expect.any(String) });
  expect(body, where).toHaveProperty("id");
}

/** FastAPI's error bodies: `{"detail": "..."}`, or `{"detail": [{type, loc, msg, ...}]}`. */
function expectDetail(text: string, where: string): void {
  let body: unknown;
  expect(() => (body = JSON.parse(text)), `${where}: not JSON`).not.toThrow();
  expect(body, where).toHaveProperty("detail");
  const detail = (body as { detail: unknown }).detail;
  if (typeof detail === "string") return;
  expect(Array.isArray(detail), `${where}: detail is neither a string nor a list`).toBe(true);
  for (const error of detail as unknown[]) {
    expect(error, where).toMatchObject({ type: expect.any(String), loc: expect.any(Array), msg: expect.any(String) });
  }
}

/**
 * Both emulators at rest, and what they store then, in one call into the object when nothing is
 * due: the control plane's workspace on a clock a day ahead (prepareWorkspace), its alarm rung
 * when one is set; the agent server's runs started by earlier requests ended (they run in the
 * background: each is awaited as join awaits it, on the engine's word), and what earlier requests
 * made that time alone would change removed: crons (their alarms start runs) and store items with
 * a TTL (their alarm deletes them).
 */
async function atRest(): Promise<EmulatorState> {
  if (THIS_EMULATOR === "agent-server") return snapshotEmulators(workspaceId, agentServerToRest);
  const state = await snapshotEmulators(workspaceId, clockAhead);
  if (state.workspace.alarm === null) return state;
  await ringAlarms(workspaceId);
  return snapshotEmulators(workspaceId);
}

async function agentServerToRest(state: AgentServerState, ctx: DurableObjectState): Promise<void> {
  ctx.storage.sql.exec("DELETE FROM crons");
  ctx.storage.sql.exec("DELETE FROM store_items WHERE expires_at IS NOT NULL");
  const inflight = ctx.storage.sql
    .exec<{ thread_id: string; run_id: string }>("SELECT thread_id, run_id FROM runs WHERE status IN ('pending', 'running')")
    .toArray();
  await Promise.all(inflight.map((run) => state.runs().result(run.thread_id, run.run_id)));
}
