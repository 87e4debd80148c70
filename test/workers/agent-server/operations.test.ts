// Which operations of the reference document (the 2026 description, 64 operations) the
// agent-server emulator serves. Each one gets a request straight to the emulator (this project's
// test Worker); an operation is routed unless the answer is the emulator's not-found for unknown
// paths, `404 {"detail": "Not Found"}`, or a 405, and served unless it is a 501. Every answer is
// also held to the contract (support.ts).
import { exports } from "cloudflare:workers";
import { operations as everyOperation, type DocumentedOperation } from "virtual:agent-server-contract";
import { describe, expect, it } from "vitest";
import { ADDED_OPERATIONS } from "../contract/agent-server-amendments.ts";
import { contractChecked } from "./support.ts";

/**
 * The operations served today. An operation that stops being served fails the test; one that
 * starts being served must be added here: all 57 of the older document since issue 24 (MCP and A2A
 * included), and the 2026 document's new ones since issue 31.
 */
const SERVED = [
  "POST /assistants",
  "POST /assistants/search",
  "POST /assistants/count",
  "GET /assistants/{assistant_id}",
  "DELETE /assistants/{assistant_id}",
  "PATCH /assistants/{assistant_id}",
  "POST /assistants/{assistant_id}/versions",
  "POST /assistants/{assistant_id}/latest",
  "POST /threads",
  "GET /threads/{thread_id}",
  "DELETE /threads/{thread_id}",
  "POST /threads/{thread_id}/runs/stream",
  "GET /threads/{thread_id}/runs/{run_id}",
  // The run engine: runs on a thread and stateless, their streams and outcomes, and the state they leave.
  "GET /threads/{thread_id}/runs",
  "POST /threads/{thread_id}/runs",
  "POST /threads/{thread_id}/runs/wait",
  "DELETE /threads/{thread_id}/runs/{run_id}",
  "GET /threads/{thread_id}/runs/{run_id}/join",
  "GET /threads/{thread_id}/runs/{run_id}/stream",
  "POST /threads/{thread_id}/runs/{run_id}/cancel",
  "GET /threads/{thread_id}/stream",
  "POST /runs",
  "POST /runs/stream",
  "POST /runs/wait",
  "POST /runs/batch",
  "POST /runs/cancel",
  "GET /threads/{thread_id}/state",
  "POST /threads/{thread_id}/state",
  "GET /threads/{thread_id}/state/{checkpoint_id}",
  "POST /threads/{thread_id}/state/checkpoint",
  "GET /threads/{thread_id}/history",
  "POST /threads/{thread_id}/history",
  "POST /threads/{thread_id}/copy",
  // Graph introspection, thread search, the store, crons and the system endpoints.
  "GET /assistants/{assistant_id}/graph",
  "GET /assistants/{assistant_id}/subgraphs",
  "GET /assistants/{assistant_id}/subgraphs/{namespace}",
  "GET /assistants/{assistant_id}/schemas",
  "POST /threads/search",
  "POST /threads/count",
  "PATCH /threads/{thread_id}",
  "PUT /store/items",
  "GET /store/items",
  "DELETE /store/items",
  "POST /store/items/search",
  "POST /store/namespaces",
  "POST /threads/{thread_id}/runs/crons",
  "POST /runs/crons",
  "POST /runs/crons/search",
  "POST /runs/crons/count",
  "DELETE /runs/crons/{cron_id}",
  "GET /info",
  "GET /ok",
  "GET /metrics",
  "POST /a2a/{assistant_id}",
  "POST /mcp/",
  "GET /mcp/",
  "DELETE /mcp/",
  // New in the 2026 document (issue 31).
  "POST /threads/prune",
  "GET /threads/{thread_id}/storage",
  "GET /runs/crons/{cron_id}",
  "PATCH /runs/crons/{cron_id}",
  "GET /docs",
  // Protocol v2: the work of the engineer "protocol-v2" (emulators/agent-server/protocols/v2/),
  // wired into the app by it; its own tests: protocol-v2*.test.ts.
  "POST /threads/{thread_id}/commands",
  "POST /threads/{thread_id}/stream/events",
];

/**
 * The operations answered with a 501 naming what is not emulated: none since MCP and A2A are
 * served (the 2026 document's only 501, storage with a custom checkpointer, does not apply: the
 * emulator's checkpointer is its own).
 */
const NOT_EMULATED: string[] = [];

const EMULATOR_URL = "https://agent-server.test";
const emulator = contractChecked((request) => exports.default.fetch(request), EMULATOR_URL);
const name = (op: DocumentedOperation) => `${op.method} ${op.path}`;
/** The document's own operations, without those the contract adds. */
const operations = everyOperation.filter((op) => !ADDED_OPERATIONS.includes(name(op)));

/** A request for the operation: made-up path parameters, and an empty JSON body where one may go. */
function requestFor(op: DocumentedOperation): [string, RequestInit] {
  const path = op.path.replace(/\{(\w+)\}/g, (_, param: string) => (param.endsWith("_id") ? crypto.randomUUID() : "emulator-test"));
  const withBody = !["GET", "HEAD"].includes(op.method);
  return [`${EMULATOR_URL}${path}`, { method: op.method, headers: withBody ? { "content-type": "application/json" } : {}, body: withBody ? "{}" : undefined }];
}

/** How the emulator answers the operation: served, not served (its not-found, or no such method), or a 501. */
async function answerTo(op: DocumentedOperation): Promise<"served" | "not served" | "not emulated"> {
  const res = await emulator(...requestFor(op));
  const text = await res.text();
  if (res.status === 404 && text === JSON.stringify({ detail: "Not Found" })) return "not served";
  // The MCP endpoint's GET is the document's own 405 (a stateless server opens no stream): served.
  if (res.status === 405 && !(op.method === "GET" && op.path === "/mcp/")) return "not served";
  return res.status === 501 ? "not emulated" : "served";
}

describe("operations the document leaves out and the contract adds (agent-server-amendments.ts)", () => {
  it("are served", async () => {
    for (const added of ADDED_OPERATIONS) {
      const op = everyOperation.find((o) => name(o) === added);
      expect(op, added).toBeDefined();
      expect(await answerTo(op!), added).toBe("served");
    }
  });
});

describe("operations of the reference document", () => {
  it("are the 64 the issue counts, each named once", () => {
    expect(operations).toHaveLength(64);
    expect(new Set(operations.map(name)).size).toBe(64);
    for (const op of [...SERVED, ...NOT_EMULATED]) expect(operations.map(name), op).toContain(op);
  });

  it(`served by the emulator: exactly the ${SERVED.length} of ${operations.length} listed as served today`, async () => {
    const served: string[] = [];
    for (const op of operations) if ((await answerTo(op)) === "served") served.push(name(op));
    expect(served.sort()).toEqual([...SERVED].sort());
  });

  it(`answered 501 (not emulated): exactly the ${NOT_EMULATED.length} listed`, async () => {
    const notEmulated: string[] = [];
    for (const op of operations) if ((await answerTo(op)) === "not emulated") notEmulated.push(name(op));
    expect(notEmulated.sort()).toEqual([...NOT_EMULATED].sort());
  });
});

/** The operations of the 2026 document that protocol v2 adds (the engineer "protocol-v2"'s work, not this file's). */
const PROTOCOL_V2 = ["POST /threads/{thread_id}/commands", "POST /threads/{thread_id}/stream/events"];

describe("every operation of the 2026 document, one by one", () => {
  // Each is routed (neither the emulator's 404 for unknown paths nor a 405) and none is a 501;
  // PROTOCOL_V2's two are the protocol-v2 work's (a failure there names it).
  it.each(operations.map((op) => [name(op), op] as const))("%s is routed and served, not 404, 405 or 501", async (_name, op) => {
    expect(await answerTo(op), PROTOCOL_V2.includes(name(op)) ? "protocol v2 (the engineer protocol-v2's work)" : undefined).toBe("served");
  });
});
