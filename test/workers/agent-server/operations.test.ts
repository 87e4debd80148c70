// Which operations of the reference document the agent-server emulator serves. Each one gets a
// request straight to the emulator (no gateway in between, whose other upstreams answer other
// paths); an operation is served unless the answer is the emulator's not-found for unknown paths,
// `404 {"detail": "Not Found"}`. Every answer is also held to the contract (support.ts).
import { env } from "cloudflare:workers";
import { operations, type DocumentedOperation } from "virtual:agent-server-contract";
import { describe, expect, it } from "vitest";
import { contractChecked } from "./support.ts";

/**
 * The operations served today. An operation that stops being served fails the test; one that
 * starts being served must be added here. Issue 11 grows this to all 57 (MCP and A2A as a
 * documented 501).
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
];

const EMULATOR_URL = "https://agent-server.test";
const emulator = contractChecked((request) => env.AGENT_SERVER!.fetch(request), EMULATOR_URL);
const name = (op: DocumentedOperation) => `${op.method} ${op.path}`;

/** A request for the operation: made-up path parameters, and an empty JSON body where one may go. */
function requestFor(op: DocumentedOperation): [string, RequestInit] {
  const path = op.path.replace(/\{(\w+)\}/g, (_, param: string) => (param.endsWith("_id") ? crypto.randomUUID() : "emulator-test"));
  const withBody = !["GET", "HEAD"].includes(op.method);
  return [`${EMULATOR_URL}${path}`, { method: op.method, headers: withBody ? { "content-type": "application/json" } : {}, body: withBody ? "{}" : undefined }];
}

async function isServed(op: DocumentedOperation): Promise<boolean> {
  const res = await emulator(...requestFor(op));
  const text = await res.text();
  return !(res.status === 404 && text === JSON.stringify({ detail: "Not Found" }));
}

describe("operations of the reference document", () => {
  it("are the 57 the issue counts, each named once", () => {
    expect(operations).toHaveLength(57);
    expect(new Set(operations.map(name)).size).toBe(57);
    for (const op of SERVED) expect(operations.map(name), op).toContain(op);
  });

  it(`served by the emulator: exactly the ${SERVED.length} of ${operations.length} listed as served today`, async () => {
    const served: string[] = [];
    for (const op of operations) if (await isServed(op)) served.push(name(op));
    expect(served.sort()).toEqual([...SERVED].sort());
  });
});
