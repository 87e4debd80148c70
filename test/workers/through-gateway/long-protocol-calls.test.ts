// Issue 32, finding 6: an MCP `tools/call` (and an A2A `message/send`) held past UPSTREAM_TIMEOUT_MS
// got 504 and left its run busy. Their headers now go out at once and their answer when the run is
// over, as `POST /runs/wait` does; a caller that hangs up has its run interrupted. The gateway's
// time is its fake timers; the run holds (the hold marker) until it is cancelled, so nothing here
// waits for a time.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { agentServer as agentServerCall, createThread, freshCaller } from "../agent-server/support.ts";
import { createRun, getRun, held, join, untilRunning } from "../agent-server/run-support.ts";
import { gatewayWith } from "../support/custom-gateway.ts";

afterEach(() => vi.useRealTimers());

const UPSTREAM_TIMEOUT_MS = 30_000;

/** The two protocol calls that run an assistant to its end, each as a JSON-RPC request through the gateway. */
const CALLS = {
  "MCP tools/call": (input: unknown) => ({
    path: "/agent-server/mcp/",
    accept: "application/json, text/event-stream",
    body: { jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "agent", arguments: input } },
  }),
  "A2A message/send": (input: { messages: { content: string }[] }) => ({
    path: "/agent-server/a2a/agent",
    accept: "application/json",
    body: {
      jsonrpc: "2.0",
      id: 7,
      method: "message/send",
      params: { message: { role: "user", messageId: crypto.randomUUID(), kind: "message", parts: [{ kind: "text", text: input.messages[0]!.content }] } },
    },
  }),
} as const;

describe("long protocol calls through the gateway", () => {
  it.each(Object.keys(CALLS) as (keyof typeof CALLS)[])(
    "%s is not cut past UPSTREAM_TIMEOUT_MS while its run works, and its run is interrupted when the caller hangs up",
    async (name) => {
      vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
      let reached!: () => void;
      const called = new Promise<void>((resolve) => (reached = resolve));
      const agentServer = { fetch: (request: Request) => (reached(), env.AGENT_SERVER!.fetch(request)) } as unknown as Fetcher;
      const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS), AGENT_SERVER: agentServer });
      const call = CALLS[name](held("a long call"));
      const answered = send(call.path, {
        method: "POST",
        headers: { ...freshCaller(), accept: call.accept, "content-type": "application/json" },
        body: JSON.stringify(call.body),
      });
      await called;
      // Twice the ordinary wait for a first byte: the run is still working.
      await vi.advanceTimersByTimeAsync(2 * UPSTREAM_TIMEOUT_MS);
      const res = await answered;
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("application/json");
      const [, threadId, runId] = /^\/threads\/([^/]+)\/runs\/([^/]+)$/.exec(res.headers.get("content-location") ?? "")!;
      vi.useRealTimers();

      await untilRunning(threadId!, runId!);
      expect((await getRun(threadId!, runId!)).body.status).toBe("running");
      // The caller goes: no one is left to take the answer, so the run ends instead of holding its thread.
      await res.body!.cancel();
      await join(threadId!, runId!);
      const after = await getRun(threadId!, runId!);
      // A stateless run's thread goes with it (MCP); a thread's run says it was interrupted (A2A).
      if (name === "MCP tools/call") expect(after.status).toBe(404);
      else expect(after.body.status).toBe("interrupted");
    },
  );

  it("answers the tool's result once the run is over, on the headers it sent at once", async () => {
    const res = await gatewayWith({})("/agent-server/mcp/", {
      method: "POST",
      headers: { ...freshCaller(), accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "call-1",
        method: "tools/call",
        params: { name: "agent", arguments: { messages: [{ role: "user", content: "hello" }] } },
      }),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { id: string; result: { isError: boolean; content: { text: string }[] } };
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: "call-1", result: { isError: false } });
    expect(JSON.parse(answer.result.content[0]!.text).messages.at(-1).content).toContain("you said: hello");
  });
});

/**
 * The agent server's other operations that last as long as a run: each answers its headers at
 * once, so the gateway's wait for a first byte never cuts one however long the run works.
 */
const RUN_OPERATIONS = {
  "POST /runs/wait": async () => ({ method: "POST", path: "/runs/wait", body: { assistant_id: "agent", input: held("stateless wait") } }),
  "POST /threads/{id}/runs/wait": async () => ({
    method: "POST",
    path: `/threads/${(await createThread()).thread_id}/runs/wait`,
    body: { assistant_id: "agent", input: held("wait") },
  }),
  "POST /threads/{id}/runs/stream": async () => ({
    method: "POST",
    path: `/threads/${(await createThread()).thread_id}/runs/stream`,
    body: { assistant_id: "agent", input: held("stream") },
  }),
  "GET /threads/{id}/runs/{run_id}/join": async () => {
    const thread = await createThread();
    const run = await createRun(thread.thread_id, { assistant_id: "agent", input: held("join") });
    return { method: "GET", path: `/threads/${thread.thread_id}/runs/${run.run_id}/join`, runPath: `/threads/${thread.thread_id}/runs/${run.run_id}` };
  },
} as const;

describe("the agent server's run operations through the gateway", () => {
  it.each(Object.keys(RUN_OPERATIONS) as (keyof typeof RUN_OPERATIONS)[])("%s is not cut past UPSTREAM_TIMEOUT_MS while its run works", async (name) => {
    const operation: { method: string; path: string; body?: unknown; runPath?: string } = await RUN_OPERATIONS[name]();
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let reached!: () => void;
    const called = new Promise<void>((resolve) => (reached = resolve));
    const agentServer = { fetch: (request: Request) => (reached(), env.AGENT_SERVER!.fetch(request)) } as unknown as Fetcher;
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS), AGENT_SERVER: agentServer });
    const answered = send(`/agent-server${operation.path}`, {
      method: operation.method,
      headers: { ...freshCaller(), "content-type": "application/json" },
      ...(operation.body !== undefined && { body: JSON.stringify(operation.body) }),
    });
    await called;
    await vi.advanceTimersByTimeAsync(2 * UPSTREAM_TIMEOUT_MS);
    const res = await answered;
    expect(res.status).toBe(200);
    vi.useRealTimers();
    const runPath = operation.runPath ?? res.headers.get("content-location")!;
    const [, threadId, runId] = /^\/threads\/([^/]+)\/runs\/([^/]+)$/.exec(runPath)!;
    await untilRunning(threadId!, runId!);
    expect((await getRun(threadId!, runId!)).body.status).toBe("running");
    // Done with: the run is cancelled, and ends.
    await res.body!.cancel();
    expect((await agentServerCall("POST", `/threads/${threadId}/runs/${runId}/cancel`)).status).toBeLessThan(300);
    await join(threadId!, runId!);
  });
});
