// A run streamed from the agent-server emulator Worker through the gateway (its service binding,
// mounted at /agent-server locally): the gateway annotates the stream with its rate-limit headers
// and passes every event on, in the emulator's wire format. How the emulator paces and words the
// events: test/workers/agent-server/.
import { describe, expect, it } from "vitest";
import { THROUGH_GATEWAY, createThread, readEvents, send } from "../agent-server/support.ts";
import { say } from "../agent-server/run-support.ts";

describe("an agent-server run stream through the gateway", () => {
  it("is the gateway's test Worker calling the bound emulator Worker", () => {
    expect(THROUGH_GATEWAY).toBe(true);
  });

  it("carries the gateway's RateLimit headers and every event, metadata first, then the end of the run", async () => {
    const thread = await createThread();
    const res = await send("POST", `/threads/${thread.thread_id}/runs/stream`, { body: { assistant_id: "agent", input: say("hi"), stream_mode: ["updates"] } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    expect(res.headers.get("ratelimit")).toMatch(/r=\d+;t=\d+/);
    // The emulator's own path (the mount prefix stripped on the way in, not added on the way out).
    expect(res.headers.get("content-location")).toMatch(new RegExp(`^/threads/${thread.thread_id}/runs/`));
    const events = await readEvents(res);
    expect(events[0]!.event).toBe("metadata");
    expect(events.filter((e) => e.event === "updates").length).toBeGreaterThan(0);
  });
});
