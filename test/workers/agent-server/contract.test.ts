// The contract checker itself (../contract/contract.ts, bound to the agent-server document): it must catch what the reference document
// forbids, or every other agent-server test would be checking nothing.
import { describe, expect, it } from "vitest";
import { checkResponse, ContractViolation, findOperation } from "../contract/agent-server.ts";
import { jsonResponse } from "../../support/responses.ts";

const check = (method: string, path: string, response: Response, requestBody?: unknown) => checkResponse({ method, path, requestBody }, response);

const ID = crypto.randomUUID();
const NOW = "2026-11-23T10:00:00.000+00:00";
const assistant = {
  assistant_id: ID,
  graph_id: "agent",
  config: {},
  context: {},
  metadata: {},
  version: 1,
  name: "agent",
  description: null,
  created_at: NOW,
  updated_at: NOW,
};

describe("findOperation", () => {
  it("finds the documented operation by method and path template, fixed segments first", () => {
    expect(findOperation("POST", "/assistants/search")?.operationId).toBe("search_assistants_assistants_search_post");
    expect(findOperation("get", `/assistants/${ID}`)?.path).toBe("/assistants/{assistant_id}");
    expect(findOperation("GET", `/threads/${ID}/runs/${ID}?x=1`)?.path).toBe("/threads/{thread_id}/runs/{run_id}");
    expect(findOperation("POST", `/threads/${ID}/state/checkpoint`)?.path).toBe("/threads/{thread_id}/state/checkpoint");
    expect(findOperation("GET", "/assistants")).toBeUndefined();
  });
});

describe("checkResponse accepts", () => {
  it("documented successes whose bodies match, and streams by their media type", async () => {
    await check("GET", `/assistants/${ID}`, jsonResponse(200, assistant));
    await check("POST", `/assistants/${ID}/versions`, jsonResponse(200, [assistant]));
    await check("POST", "/assistants/count", jsonResponse(200, 3));
    await check(
      "POST",
      `/threads/${ID}/runs/stream`,
      new Response("event: metadata\ndata: {}\n\n", { headers: { "content-type": "text/event-stream; charset=utf-8" } }),
    );
    await check("PUT", "/store/items", new Response(null, { status: 204 }));
  });

  it("selected fields only, when the search asked for them", async () => {
    await check("POST", "/assistants/search", jsonResponse(200, [{ name: "agent" }]), { select: ["name"] });
  });

  it("errors in the real server's shape, whatever their status", async () => {
    await check("GET", `/assistants/${ID}`, jsonResponse(404, { detail: "Assistant not found." }));
    await check("PATCH", "/assistants/agent", jsonResponse(409, { detail: "read-only" }));
    await check("POST", "/assistants", jsonResponse(422, { detail: [{ type: "missing", loc: ["body", "graph_id"], msg: "Field required" }] }));
    await check(
      "POST",
      "/assistants",
      jsonResponse(429, { type: "about:blank", title: "Too Many Requests", status: 429, detail: "slow down" }, "application/problem+json"),
    );
  });

  it("an error the 2026 document types in its own shape, as that shape (protocol v2's ProtocolError)", async () => {
    await check("POST", `/threads/${ID}/commands`, jsonResponse(400, { type: "error", id: null, error: "invalid_argument", message: "not a command" }));
  });
});

describe("checkResponse refuses an error the document types in its own shape, in another", () => {
  it("a protocol v2 command's 400 as FastAPI's {detail}", async () => {
    await expect(check("POST", `/threads/${ID}/commands`, jsonResponse(400, { detail: "not a command" }))).rejects.toThrow(
      /commands_post 400|required property 'type'/,
    );
  });
});

describe("checkResponse refuses", () => {
  it.each([
    ["a version without updated_at", "POST", `/assistants/${ID}/versions`, jsonResponse(200, [{ ...assistant, updated_at: undefined }]), /updated_at/],
    [
      "a thread status the document does not list",
      "GET",
      `/threads/${ID}`,
      jsonResponse(200, { thread_id: ID, created_at: NOW, updated_at: NOW, metadata: {}, status: "asleep" }),
      /status/,
    ],
    ["a config whose tags are not a list", "GET", `/assistants/${ID}`, jsonResponse(200, { ...assistant, config: { tags: "a" } }), /config\/tags/],
    ["a timestamp that is not a date-time", "GET", `/assistants/${ID}`, jsonResponse(200, { ...assistant, created_at: "yesterday" }), /created_at/],
    ["the document's own error body (a bare string)", "GET", `/assistants/${ID}`, jsonResponse(404, "Assistant not found."), /error body/],
    ["a 422 whose detail is not FastAPI's list", "POST", "/assistants", jsonResponse(422, { detail: "bad" }), /error body/],
    [
      "a 422 item with fields FastAPI does not write",
      "POST",
      "/assistants",
      jsonResponse(422, { detail: [{ type: "missing", loc: ["body"], msg: "Field required", hint: "x" }] }),
      /additional/,
    ],
    [
      "an error that is not JSON",
      "GET",
      `/assistants/${ID}`,
      new Response("Not Found", { status: 404, headers: { "content-type": "text/plain" } }),
      /not JSON/,
    ],
    ["an undocumented success status", "POST", "/assistants", jsonResponse(201, assistant), /status 201 is not documented/],
    ["an undocumented media type", "POST", "/assistants", jsonResponse(200, assistant, "text/plain"), /media type 'text\/plain'/],
    ["a success for an operation the document does not describe", "GET", "/assistants", jsonResponse(200, []), /does not describe/],
  ] as const)("%s", async (_name, method, path, response, message) => {
    await expect(check(method, path, response)).rejects.toThrow(ContractViolation);
    await expect(check(method, path, response.clone())).rejects.toThrow(message);
  });

  it("a body where the document has none", async () => {
    // The runtime will not build a 204 with a body; a 204 is what one reads as.
    const withBody = () => Object.defineProperty(new Response("{}"), "status", { value: 204 });
    await expect(check("PUT", "/store/items", withBody())).rejects.toThrow(/has no body/);
  });

  it("fields a selection did not ask for", async () => {
    await expect(check("POST", "/assistants/search", jsonResponse(200, [{ name: "agent", graph_id: "agent" }]), { select: ["name"] })).rejects.toThrow(
      /did not ask for: graph_id/,
    );
  });
});
