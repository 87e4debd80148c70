// Streams through the gateway answer their status and headers at once, before the emulator has
// written any event (an idle thread's stream, a run held before its last step), as a streaming
// server does. The only bound is the test's own timeout: a gateway that waited for a first chunk
// before answering would never resolve these fetches.
import { describe, expect, it } from "vitest";
import { THROUGH_GATEWAY, createThread, headersOf, send } from "../agent-server/support.ts";
import { createRun, held, untilRunning } from "../agent-server/run-support.ts";

const SSE = "text/event-stream; charset=utf-8";

describe("agent-server streams through the gateway answer their headers at once", () => {
  it("is the gateway in front of the emulator", () => {
    expect(THROUGH_GATEWAY).toBe(true);
  });

  it("GET /threads/{thread_id}/stream on an idle thread", async () => {
    const thread = await createThread();
    expect(await headersOf(await send("GET", `/threads/${thread.thread_id}/stream`))).toEqual({ status: 200, type: SSE, limited: true });
  });

  it("GET .../runs/{run_id}/stream of a held run, after its last kept event", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: held("wait"), stream_mode: ["updates"] });
    await untilRunning(thread.thread_id, run.run_id);
    const res = await send("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream`, { headers: { "last-event-id": "999999999" } });
    expect(await headersOf(res)).toEqual({ status: 200, type: SSE, limited: true });
    await send("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel`);
  });

  it("POST /threads/{thread_id}/runs/stream of a held run", async () => {
    const thread = await createThread();
    const res = await send("POST", `/threads/${thread.thread_id}/runs/stream`, {
      body: { assistant_id: "agent", input: held("wait"), stream_mode: ["updates"] },
    });
    expect(await headersOf(res)).toEqual({ status: 200, type: SSE, limited: true });
  });
});
