import { describe, expect, it, vi } from "vitest";
import { fireCrons, runRequestFor, type DueCron } from "../../../emulators/agent-server/crons/firing.ts";

const ORIGIN = "https://agent-server.internal";
const payload = {
  assistant_id: "fe096781-5601-53d2-b2f6-0d3403f7e9ca",
  schedule: "@daily",
  end_time: "2030-01-01T00:00:00Z",
  input: { messages: [{ role: "user", content: "tick" }] },
  metadata: { job: "daily" },
  enabled: true,
};

describe("a due cron's run request", () => {
  it("is a background run on the cron's thread, queued (enqueue) unless the cron says otherwise, without the cron's own fields", async () => {
    const cron: DueCron = { cron_id: "c1", thread_id: "t-1", on_run_completed: null, payload };
    const request = runRequestFor(cron, ORIGIN);
    expect(request.method).toBe("POST");
    expect(request.url).toBe(`${ORIGIN}/threads/t-1/runs`);
    expect(await request.json()).toEqual({
      assistant_id: payload.assistant_id,
      input: payload.input,
      metadata: payload.metadata,
      multitask_strategy: "enqueue",
    });
    const rejecting = runRequestFor({ ...cron, payload: { ...payload, multitask_strategy: "reject" } }, ORIGIN);
    expect(await rejecting.json()).toMatchObject({ multitask_strategy: "reject" });
  });

  it("is a stateless run for a cron without a thread, deleting its thread unless the cron keeps it", async () => {
    const cron: DueCron = { cron_id: "c2", thread_id: null, on_run_completed: null, payload: { ...payload, multitask_strategy: "enqueue" } };
    const request = runRequestFor(cron, ORIGIN);
    expect(request.url).toBe(`${ORIGIN}/runs`);
    expect(await request.json()).toEqual({ assistant_id: payload.assistant_id, input: payload.input, metadata: payload.metadata, on_completion: "delete" });
    expect(await runRequestFor({ ...cron, on_run_completed: "keep" }, ORIGIN).json()).toMatchObject({ on_completion: "keep" });
  });
});

describe("firing due crons", () => {
  it("sends each run, reports the run or the refusal, and goes on after a failure", async () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const due: DueCron[] = ["ok", "refused", "broken"].map((id) => ({ cron_id: id, thread_id: null, on_run_completed: null, payload }));
    let call = 0;
    const send = async () => {
      call++;
      if (call === 1) return Response.json({ run_id: "r-1", status: "pending" });
      if (call === 2) return Response.json({ detail: "Assistant not found" }, { status: 404 });
      throw new Error("connection lost");
    };
    expect(await fireCrons(due, send, ORIGIN)).toEqual([
      { cron_id: "ok", status: 200, run_id: "r-1" },
      { cron_id: "refused", status: 404, detail: "Assistant not found" },
      { cron_id: "broken", status: 500, detail: "Error: connection lost" },
    ]);
  });
});
