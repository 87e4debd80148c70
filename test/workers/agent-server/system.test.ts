// /info, /ok, /metrics and the protocols the emulator answers with 501 (A2A, MCP).
import { describe, expect, it } from "vitest";
import { agentServer, send } from "./support.ts";

describe("GET /info", () => {
  it("answers the real server's fields and the document's metadata, with crons on", async () => {
    const res = await agentServer("GET", "/info");
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      version: expect.any(String),
      langgraph_py_version: expect.any(String),
      flags: { assistants: true, crons: true },
      metadata: { graphs: ["agent", "pipeline", "approval"] },
    });
  });
});

describe("GET /ok", () => {
  it("answers {ok: true}, also when asked to check the state object", async () => {
    expect(await agentServer("GET", "/ok")).toMatchObject({ status: 200, body: { ok: true } });
    expect(await agentServer("GET", "/ok?check_db=1")).toMatchObject({ status: 200, body: { ok: true } });
  });
});

describe("GET /metrics", () => {
  it("answers the run queue in Prometheus' text format by default", async () => {
    const res = await send("GET", "/metrics");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await res.text();
    expect(text).toMatch(/^# TYPE lg_api_num_pending_runs gauge$/m);
    expect(text).toMatch(/^lg_api_num_running_runs \d+$/m);
  });

  it("answers JSON with ?format=json", async () => {
    const res = await agentServer("GET", "/metrics?format=json");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ queue: { n_pending: expect.any(Number), n_running: expect.any(Number), max_age_secs: null, med_age_secs: null } });
  });
});

describe("A2A and MCP", () => {
  it("answer 501 with a detail naming what is not emulated", async () => {
    const a2a = await agentServer("POST", "/a2a/agent", { body: { jsonrpc: "2.0", id: "1", method: "message/send" } });
    expect(a2a.status).toBe(501);
    expect(a2a.body.detail).toMatch(/^A2A .* is not emulated/);
    for (const method of ["GET", "POST", "DELETE"]) {
      const mcp = await agentServer(method, "/mcp/", method === "POST" ? { body: { jsonrpc: "2.0", id: "1", method: "initialize" } } : {});
      expect(mcp.status, method).toBe(501);
      expect(mcp.body.detail).toMatch(/^MCP .* is not emulated/);
    }
  });
});
