// How the agent-server emulator reads request bodies (emulators/shared/request-body.ts), where
// FastAPI's own reading decides the answer: nesting both sides of the bound (a body nested
// MAX_JSON_DEPTH levels is taken and round-trips, one level more is FastAPI's 400), bytes that are
// not UTF-8, and the body read to its end before any answer. The control plane (the same reader):
// test/workers/control-plane/body-reading.test.ts.
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAgentServer } from "../../../emulators/agent-server/app.ts";
import { MAX_JSON_DEPTH } from "../../../emulators/shared/json-depth.ts";
import { bodyAt, depthOf } from "../../support/nested-json.ts";
import { AGENT_SERVER_URL, agentServer, createThread, freshCaller } from "./support.ts";
import { trackedUpload } from "../support/tracked-upload.ts";

const PARSE_ERROR = { detail: "There was an error parsing the body" };

it("the bodies below are exactly as deep as they say", () => {
  expect(depthOf(JSON.parse(bodyAt(MAX_JSON_DEPTH, "metadata", { graph_id: "agent" }).text))).toBe(MAX_JSON_DEPTH);
  expect(depthOf(JSON.parse(bodyAt(MAX_JSON_DEPTH + 1, "metadata").text))).toBe(MAX_JSON_DEPTH + 1);
});

// These are the file's first requests, so they meet a cold isolate (unoptimized code, the largest
// stack frames): the bound must hold there, not only once the code is warm.
describe(`a body nested ${MAX_JSON_DEPTH} levels (the bound) is taken and round-trips`, () => {
  it.each([
    ["/assistants", "assistant_id", { graph_id: "agent" }],
    ["/threads", "thread_id", {}],
  ] as const)("POST %s metadata: stored and read back as sent", async (collection, idField, fields) => {
    const body = bodyAt(MAX_JSON_DEPTH, "metadata", fields);
    const created = await agentServer("POST", collection, { rawBody: body.text });
    expect(created.status).toBe(200);
    expect(JSON.stringify(created.body.metadata)).toBe(body.value);
    const read = await agentServer("GET", `${collection}/${created.body[idField]}`);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body.metadata)).toBe(body.value);
  });

  it("POST /assistants/search metadata: the filter matches the assistant stored with it", async () => {
    const stored = bodyAt(MAX_JSON_DEPTH, "metadata", { graph_id: "pipeline" });
    const created = await agentServer("POST", "/assistants", { rawBody: stored.text });
    expect(created.status).toBe(200);
    // `{"metadata": <the stored value>}`: as deep as the body that stored it.
    const search = await agentServer("POST", "/assistants/search", { rawBody: `{"metadata":${stored.value}}` });
    expect(search.status).toBe(200);
    expect(search.body.map((a: { assistant_id: string }) => a.assistant_id)).toEqual([created.body.assistant_id]);
    expect(JSON.stringify(search.body[0].metadata)).toBe(stored.value);
  });
});

describe(`a body nested ${MAX_JSON_DEPTH + 1} levels is refused with 400, as FastAPI refuses it, and stores nothing`, () => {
  it.each(["metadata", "config", "context"])("POST /assistants %s", async (field) => {
    // This file's tests run one at a time on storage of their own, so the count is this file's.
    const before = await agentServer("POST", "/assistants/count", { body: {} });
    const res = await agentServer("POST", "/assistants", { rawBody: bodyAt(MAX_JSON_DEPTH + 1, field, { graph_id: "agent" }).text });
    expect(res).toMatchObject({ status: 400, body: PARSE_ERROR });
    expect((await agentServer("POST", "/assistants/count", { body: {} })).body).toBe(before.body);
  });

  it("POST /threads metadata", async () => {
    const res = await agentServer("POST", "/threads", { rawBody: bodyAt(MAX_JSON_DEPTH + 1, "metadata").text });
    expect(res).toMatchObject({ status: 400, body: PARSE_ERROR });
  });

  it("POST /assistants/search metadata", async () => {
    const res = await agentServer("POST", "/assistants/search", { rawBody: bodyAt(MAX_JSON_DEPTH + 1, "metadata").text });
    expect(res).toMatchObject({ status: 400, body: PARSE_ERROR });
  });

  it("a run's input on POST /threads/{id}/runs/stream: no stream starts, the thread stays as it was", async () => {
    const thread = await createThread();
    const res = await agentServer("POST", `/threads/${thread.thread_id}/runs/stream`, {
      rawBody: bodyAt(MAX_JSON_DEPTH + 1, "input", { assistant_id: "agent" }).text,
    });
    expect(res).toMatchObject({ status: 400, body: PARSE_ERROR });
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body).toEqual(thread);
  });

  it("even text that is not JSON at all: brackets opened far beyond the bound and never closed", async () => {
    const res = await agentServer("POST", "/assistants", { rawBody: "[".repeat(50_000) });
    expect(res).toMatchObject({ status: 400, body: PARSE_ERROR });
  });

  it("while shallow malformed JSON stays a 422 json_invalid", async () => {
    const res = await agentServer("POST", "/assistants", { rawBody: "[".repeat(10) });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([expect.objectContaining({ type: "json_invalid" })]);
  });
});

describe("a JSON body that is not UTF-8 is FastAPI's 400 too (UnicodeDecodeError is not a JSONDecodeError)", () => {
  it.each([
    ["a lone continuation byte", [0x7b, 0x80, 0x7d]],
    ["an overlong slash", [0x22, 0xc0, 0xaf, 0x22]],
    ["Latin-1 text", [...new TextEncoder().encode('{"graph_id": "caf'), 0xe9, 0x22, 0x7d]],
  ])("%s", async (_name, bytes) => {
    const headers = { ...freshCaller(), "content-type": "application/json" };
    const res = await exports.default.fetch(`${AGENT_SERVER_URL}/assistants`, { method: "POST", headers, body: Uint8Array.from(bytes) });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(PARSE_ERROR);
  });
});

describe("the body is read to its end before any answer, even a refusal, so an upload is never cut off", () => {
  it.each([["an unknown path", "/nowhere", {}, 404]] as const)("%s", async (_name, path, headers, status) => {
    const { body, finished } = trackedUpload();
    const res = await createAgentServer().fetch(new Request(`https://emulator.test${path}`, { method: "POST", headers, body }), env);
    expect(res.status).toBe(status);
    expect(finished()).toBe(true);
  });
});
