// POST /runs/cancel with a status cancels every such run of the deployment, so it has a file (and
// with it a state object) of its own: no other test's runs are in it.
import { describe, expect, it } from "vitest";
import { agentServer, createThread } from "./support.ts";
import { createRun, getRun, held, say, untilOver, untilRunning } from "./run-support.ts";

describe("POST /runs/cancel by status", () => {
  it("pending cancels the queued runs only; all cancels the running ones too; then nothing is left: 404", async () => {
    const one = await createThread();
    const two = await createThread();
    const running = await createRun(one.thread_id, { assistant_id: "agent", input: held("running") });
    const queued = await createRun(one.thread_id, { assistant_id: "agent", input: say("queued") });
    const alsoRunning = await createRun(two.thread_id, { assistant_id: "agent", input: held("also running") });
    await untilRunning(one.thread_id, running.run_id);
    await untilRunning(two.thread_id, alsoRunning.run_id);

    expect((await agentServer("POST", "/runs/cancel", { body: { status: "pending" } })).status).toBe(204);
    expect((await getRun(one.thread_id, queued.run_id)).body.status).toBe("interrupted");
    expect((await getRun(one.thread_id, running.run_id)).body.status).toBe("running");

    expect((await agentServer("POST", "/runs/cancel?action=rollback", { body: { status: "all" } })).status).toBe(204);
    // A rollback deletes each run once it has stopped, which is when join answers.
    expect((await untilOver(one.thread_id, running.run_id)).status).toBe(404);
    expect((await untilOver(two.thread_id, alsoRunning.run_id)).status).toBe(404);
    expect(await agentServer("POST", "/runs/cancel", { body: { status: "running" } })).toMatchObject({
      status: 404,
      body: { detail: "No runs found to cancel." },
    });
  });
});
