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
