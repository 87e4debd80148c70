// Protocol v2 over HTTP on a thread id the client made and the server has never seen, as the real
// server (`@langchain/langgraph-api`) takes it: the event stream opens at once (the official
// client awaits its headers before `run.start`), and `run.start` on the commands route creates
// the thread, whose events reach the stream already open. The socket's side is in
// protocol-v2-socket.test.ts.
import { describe, expect, it } from "vitest";
import { agentServer } from "./support.ts";
import { join } from "./run-support.ts";
import { command, isTerminal, openProtocolEvents, succeed } from "./protocol-v2-support.ts";

const hello = { messages: [{ role: "user", content: "hello" }] };

describe("protocol v2 on a new thread id over HTTP", () => {
  it("opens the event stream before the thread exists, and run.start's events reach it", async () => {
    const threadId = crypto.randomUUID();
    const { res, events } = await openProtocolEvents(threadId, { channels: ["lifecycle", "values"] });
    expect([res.status, res.headers.get("content-type")]).toEqual([200, expect.stringContaining("text/event-stream")]);

    const { run_id } = await succeed(threadId, "run.start", { assistant_id: "agent", input: hello });
    const end = await events.until(isTerminal);
    await events.drop();
    expect(end.data.params.data).toMatchObject({ event: "completed" });
    expect(events.seen[0]!.data.params.data).toMatchObject({ event: "started", run_id });
    expect((await agentServer("GET", `/threads/${threadId}`)).status).toBe(200);
  });

  it("answers every command on a new thread id with 200: run.start creates it, the others say it is not there yet", async () => {
    const threadId = crypto.randomUUID();
    for (const [method, params] of [
      ["state.get", {}],
      ["agent.getTree", {}],
      ["state.listCheckpoints", {}],
    ] as const) {
      const answer = await command(threadId, 1, method, params);
      expect([method, answer.status, answer.body.type]).toEqual([method, 200, "error"]);
    }
    expect((await agentServer("GET", `/threads/${threadId}`)).status).toBe(404);
    const started = await command(threadId, 2, "run.start", { assistant_id: "agent", input: hello });
    expect([started.status, started.body.type]).toEqual([200, "success"]);
    await join(threadId, started.body.result.run_id);
    expect((await agentServer("GET", `/threads/${threadId}`)).status).toBe(200);
  });

  it("still refuses a thread id that is no UUID (422) and a body that is no event filter (400)", async () => {
    expect((await agentServer("POST", "/threads/not-a-uuid/stream/events", { body: { channels: ["values"] } })).status).toBe(422);
    expect((await agentServer("POST", `/threads/${crypto.randomUUID()}/stream/events`, { body: { channels: [] } })).status).toBe(400);
  });
});
