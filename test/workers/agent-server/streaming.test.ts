// Pacing: with AGENT_SERVER_STEP_DELAY_MS set, events leave the emulator one by one and the gateway
// passes each on as it comes, so a client holds the first event while the run is still going.
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env.ts";
import { createAgentServer } from "../../../src/emulators/agent-server/app.ts";
import { parseEvents } from "../../../src/emulators/shared/sse.ts";
import { createGateway } from "../../../src/gateway/app.ts";
import { AGENT_SERVER_URL, contractChecked, freshCaller, type WireEvent } from "./support.ts";

const STEP_MS = 200;

/**
 * The real gateway in front of the real emulator app, with the emulator's step delay set: the
 * AGENT_SERVER binding is a fetcher that calls the app with a modified env.
 */
function pacedGateway(delay = String(STEP_MS)) {
  const agentServer = createAgentServer();
  const agentEnv = { ...env, AGENT_SERVER_STEP_DELAY_MS: delay } as Env;
  const fetcher = {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => agentServer.fetch(new Request(input, init), agentEnv, createExecutionContext()),
  } as Fetcher;
  const gateway = createGateway();
  const gatewayEnv = { ...env, AGENT_SERVER: fetcher } as Env;
  const checkedFetch = contractChecked(async (request) => gateway.fetch(request, gatewayEnv, createExecutionContext()));
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

describe("paced runs through the gateway", () => {
  it("paces each step: step n arrives no sooner than n delays after the request", async () => {
    const call = pacedGateway();
    const thread = await json(await call("POST", "/threads", {}));
    const started = Date.now();
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: "pipeline",
      input: { messages: [{ role: "user", content: "paced" }] },
      stream_mode: ["updates"],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toMatch(/q=\d+;w=\d+/);
    expect(res.headers.get("ratelimit")).toMatch(/r=\d+;t=\d+/);
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
    const call = pacedGateway();
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
    const call = pacedGateway();
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
    const call = pacedGateway("soon");
    const thread = await json(await call("POST", "/threads", {}));
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent" });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ detail: "AGENT_SERVER_STEP_DELAY_MS must be a whole number of milliseconds from 0 to 60000, got 'soon'." });
  });
});
