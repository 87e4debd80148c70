// Every streaming route answers its status line and headers at once, before any event is written,
// as a streaming server does: a client knows it is connected while it waits. Each test reads only
// the status and headers of a stream that has nothing to send yet (an idle thread, a held run);
// the only bound is the test's own timeout (a stream that held its headers back never resolves).
import { describe, expect, it } from "vitest";
import { createThread, headersOf, send } from "./support.ts";
import { createRun, held, untilRunning } from "./run-support.ts";

const SSE = "text/event-stream; charset=utf-8";

describe("streams answer their headers at once", () => {
  it("joining an idle thread's stream answers 200 text/event-stream while no run has happened", async () => {
    const thread = await createThread();
    expect(await headersOf(await send("GET", `/threads/${thread.thread_id}/stream`))).toEqual({ status: 200, type: SSE, limited: false });
  });

  it("joining a run's stream answers at once while the run is held before its last step", async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: held("wait"), stream_mode: ["updates"] });
    await untilRunning(thread.thread_id, run.run_id);
    // After the last event kept: nothing to replay, nothing live until the run goes on.
    const last = await send("GET", `/threads/${thread.thread_id}/runs/${run.run_id}/stream`, { headers: { "last-event-id": "999999999" } });
    expect(await headersOf(last)).toEqual({ status: 200, type: SSE, limited: false });
    await send("POST", `/threads/${thread.thread_id}/runs/${run.run_id}/cancel`);
  });

  it("a run's own stream answers at once although its first step is held", async () => {
    const thread = await createThread();
    const res = await send("POST", `/threads/${thread.thread_id}/runs/stream`, {
      body: { assistant_id: "agent", input: held("wait"), stream_mode: ["updates"] },
    });
    expect(await headersOf(res)).toEqual({ status: 200, type: SSE, limited: false });
  });
});
