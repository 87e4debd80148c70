// GET /assistants/{assistant_id}/graph, /schemas, /subgraphs: derived from the graph definitions.
import { describe, expect, it } from "vitest";
import { agentServer, createAssistant } from "./support.ts";

describe("GET /assistants/{assistant_id}/graph", () => {
  it("draws the assistant's graph: start, its nodes in order, end", async () => {
    const assistant = await createAssistant({ graph_id: "pipeline" });
    const res = await agentServer("GET", `/assistants/${assistant.assistant_id}/graph`);
    expect(res.status).toBe(200);
    expect(res.body.nodes.map((n: any) => [n.id, n.type])).toEqual([
      ["__start__", "schema"],
      ["draft", "runnable"],
      ["review", "runnable"],
      ["__end__", "schema"],
    ]);
    expect(res.body.edges).toEqual([
      { source: "__start__", target: "draft" },
      { source: "draft", target: "review" },
      { source: "review", target: "__end__" },
    ]);
  });

  it("takes a graph id, and xray as true, false or a depth (the graphs have no subgraphs to expand)", async () => {
    const plain = await agentServer("GET", "/assistants/agent/graph");
    expect(plain.body.nodes.map((n: any) => n.id)).toEqual(["__start__", "agent", "__end__"]);
    for (const xray of ["true", "False", "2", ""]) expect((await agentServer("GET", `/assistants/agent/graph?xray=${xray}`)).body).toEqual(plain.body);
  });

  it("answers 422 for an xray that is neither a boolean nor a depth above 0, 404 for an unknown assistant", async () => {
    for (const xray of ["0", "-1", "yes"]) {
      const res = await agentServer("GET", `/assistants/agent/graph?xray=${xray}`);
      expect(res.status, xray).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ type: "value_error", loc: ["query", "xray"] });
    }
    const missing = await agentServer("GET", `/assistants/${crypto.randomUUID()}/graph`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ detail: expect.stringMatching(/^Assistant .* not found\.$/) });
    expect((await agentServer("GET", "/assistants/not-a-graph/graph")).status).toBe(422);
  });
});

describe("GET /assistants/{assistant_id}/schemas", () => {
  it("answers the graph's input, output, state, config and context schemas", async () => {
    const res = await agentServer("GET", "/assistants/agent/schemas");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      graph_id: "agent",
      state_schema: { type: "object", properties: { messages: { type: "array" } } },
      input_schema: { type: "object" },
      output_schema: { type: "object" },
      config_schema: { type: "object" },
      context_schema: { type: "object", properties: { system_prompt: { type: "string" }, model: { type: "string" } }, additionalProperties: false },
    });
    const pipeline = await createAssistant({ graph_id: "pipeline" });
    const schemas = await agentServer("GET", `/assistants/${pipeline.assistant_id}/schemas`);
    expect(Object.keys(schemas.body.context_schema.properties)).toEqual(["system_prompt"]);
  });

  it("answers 404 for an unknown assistant and 422 for an id that is neither a UUID nor a graph id", async () => {
    expect((await agentServer("GET", `/assistants/${crypto.randomUUID()}/schemas`)).status).toBe(404);
    expect((await agentServer("GET", "/assistants/x/schemas")).body.detail[0]).toMatchObject({ type: "uuid_parsing", loc: ["path", "assistant_id"] });
  });
});

describe("GET /assistants/{assistant_id}/subgraphs", () => {
  it("answers an empty map: the emulated graphs have no subgraphs, under any namespace", async () => {
    expect(await agentServer("GET", "/assistants/agent/subgraphs")).toMatchObject({ status: 200, body: {} });
    expect(await agentServer("GET", "/assistants/agent/subgraphs?recurse=true")).toMatchObject({ status: 200, body: {} });
    expect(await agentServer("GET", "/assistants/pipeline/subgraphs/draft")).toMatchObject({ status: 200, body: {} });
  });

  it("answers 404 for an unknown assistant", async () => {
    expect((await agentServer("GET", `/assistants/${crypto.randomUUID()}/subgraphs`)).status).toBe(404);
    expect((await agentServer("GET", `/assistants/${crypto.randomUUID()}/subgraphs/ns`)).status).toBe(404);
  });
});
