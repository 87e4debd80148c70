// Pacing: with AGENT_SERVER_STEP_DELAY_MS set, events leave the emulator one by one, so a client
// holds the first event while the run is still going. (That the gateway passes each event on as it
// comes: test/workers/through-gateway/agent-server-stream.test.ts.)
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAgentServer } from "../../../emulators/agent-server/app.ts";
import type { AgentServerBindings } from "../../../emulators/agent-server/env.ts";
import { parseEvents } from "../../../emulators/shared/sse.ts";
import { AGENT_SERVER_URL, contractChecked, freshCaller, type WireEvent } from "./support.ts";

const STEP_MS = 200;

/** The real emulator app on this Worker's own state, with its step delay set in its env. */
function pacedAgentServer(delay = String(STEP_MS)) {
  const agentServer = createAgentServer();
  const agentEnv = { ...(env as unknown as AgentServerBindings), AGENT_SERVER_STEP_DELAY_MS: delay };
  const checkedFetch = contractChecked(async (request) => agentServer.fetch(request, agentEnv, createExecutionContext()));
  return async (method: string, path: string, body?: unknown): Promise<Response> => {
    const headers: Record<string, string> = freshCaller();
    if (body !== undefined) headers["content-type"] = "application/json";
    return checkedFetch(`${AGENT_SERVER_URL}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  };
}

/** Reads a stream event by event, noting when each one reached the client. */
async function* timedEvents(res: Response): AsyncGenerator<{ event: WireEvent; at: number }> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const { events, rest } = parseEvents(buffer + value);
      buffer = rest;
      const at = Date.now();
      for (const event of events) yield { event, at };
    }
  } finally {
    reader.releaseLock();
  }
}

const json = async (res: Response) => (await res.json()) as any;

describe("paced runs", () => {
  it("paces each step: step n arrives no sooner than n delays after the request", async () => {
    const call = pacedAgentServer();
    const thread = await json(await call("POST", "/threads", {}));
    const started = Date.now();
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: "pipeline",
      input: { messages: [{ role: "user", content: "paced" }] },
      stream_mode: ["updates"],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-location")).toMatch(new RegExp(`^/threads/${thread.thread_id}/runs/`));

    const arrivals: { event: WireEvent; at: number }[] = [];
    for await (const item of timedEvents(res)) arrivals.push(item);

    expect(arrivals.map((a) => a.event.event)).toEqual(["metadata", "updates", "updates"]);
    const [, draft, review] = arrivals.map((a) => a.at - started) as [number, number, number];
    // Step n cannot arrive before n delays have passed since the request was sent: lower bounds
    // from the one time the run cannot precede (a busy machine delays events, and may delay one
    // more than the next, so gaps between arrivals prove nothing). That events come while the run
    // is still going is the next test's, proven by a run that does not end, not by a clock.
    expect(draft).toBeGreaterThanOrEqual(STEP_MS * 0.9);
    expect(review).toBeGreaterThanOrEqual(2 * STEP_MS * 0.9);

    const after = await json(await call("GET", `/threads/${thread.thread_id}`));
    expect(after.status).toBe("idle");
    expect(after.values.messages.map((m: any) => m.content)).toEqual(["paced", "draft: paced", "reviewed: paced"]);
  });

  it("delivers each event while the run is still going", async () => {
    const call = pacedAgentServer();
    const thread = await json(await call("POST", "/threads", {}));
    // The pipeline drafts, then holds before its review until cancelled: it is certainly still
    // going while the client reads.
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: "pipeline",
      input: { messages: [{ role: "user", content: "paced [[hold]]" }] },
      stream_mode: ["updates"],
    });
    const events = timedEvents(res);
    const first = (await events.next()).value!.event;
    expect(first.event).toBe("metadata");
    // Holding the first event: the thread is busy and has no reply yet, and a second run on it is
    // refused (multitask_strategy reject).
    const during = await json(await call("GET", `/threads/${thread.thread_id}`));
    expect(during.status).toBe("busy");
    expect(during.values).toEqual({});
    const second = await call("POST", `/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", multitask_strategy: "reject" });
    expect(second.status).toBe(409);
    expect((await json(second)).detail).toContain(`Thread ${thread.thread_id} is busy with run ${first.data.run_id}`);

    // The draft's update comes while the run holds; the stream ends when it is cancelled.
    expect(Object.keys((await events.next()).value!.event.data)).toEqual(["draft"]);
    await call("POST", `/threads/${thread.thread_id}/runs/${first.data.run_id}/cancel`);
    expect((await events.next()).done).toBe(true);
  });

  it("finishes and saves a run whose client hung up after the first event", async () => {
    const call = pacedAgentServer();
    const thread = await json(await call("POST", "/threads", {}));
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", input: { messages: [{ role: "user", content: "bye" }] } });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();

    // Polled until the run ends, however long a busy machine takes (the test timeout is the bound).
    let state: any;
    for (;;) {
      state = await json(await call("GET", `/threads/${thread.thread_id}`));
      if (state.status !== "busy") break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(state.status).toBe("idle");
    expect(state.values.messages.map((m: any) => m.content)).toEqual(["bye", "you said: bye"]);
  });

  it("answers 500 naming the setting when AGENT_SERVER_STEP_DELAY_MS is not a number of milliseconds", async () => {
    const call = pacedAgentServer("soon");
    const thread = await json(await call("POST", "/threads", {}));
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent" });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ detail: "AGENT_SERVER_STEP_DELAY_MS must be a whole number of milliseconds from 0 to 60000, got 'soon'." });
  });
});
