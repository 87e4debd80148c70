// Issue 32, finding 6: an MCP `tools/call` held past UPSTREAM_TIMEOUT_MS got 504 and left its run
// busy. Its headers now go out at once and its answer when the run is over, as `POST /runs/wait`
// does; a caller that hangs up has its run interrupted. The gateway's time is its fake timers; the
// run holds (the hold marker) until it is cancelled, so nothing here waits for a time.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { freshCaller } from "../agent-server/support.ts";
import { getRun, held, join, untilRunning } from "../agent-server/run-support.ts";
import { gatewayWith } from "../support/custom-gateway.ts";

afterEach(() => vi.useRealTimers());

const UPSTREAM_TIMEOUT_MS = 30_000;

describe("MCP tools/call through the gateway", () => {
  it("is not cut past UPSTREAM_TIMEOUT_MS while its run works, and its run is interrupted when the caller hangs up", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let reached!: () => void;
    const called = new Promise<void>((resolve) => (reached = resolve));
    const agentServer = { fetch: (request: Request) => (reached(), env.AGENT_SERVER!.fetch(request)) } as unknown as Fetcher;
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: String(UPSTREAM_TIMEOUT_MS), AGENT_SERVER: agentServer });
    const answered = send("/agent-server/mcp/", {
      method: "POST",
      headers: { ...freshCaller(), accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name: "agent", arguments: held("a long tool call") } }),
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
    // A stateless run's thread goes with it; kept, it would say interrupted.
    expect(after.status === 404 || after.body.status === "interrupted").toBe(true);
  });

  it("answers the tool's result once the run is over, on the headers it sent at once", async () => {
    const res = await gatewayWith({})("/agent-server/mcp/", {
      method: "POST",
      headers: { ...freshCaller(), accept: "application/json, text/event-stream", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: "call-1", method: "tools/call", params: { name: "agent", arguments: { messages: [{ role: "user", content: "hello" }] } } }),
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { id: string; result: { isError: boolean; content: { text: string }[] } };
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: "call-1", result: { isError: false } });
    expect(JSON.parse(answer.result.content[0]!.text).messages.at(-1).content).toContain("you said: hello");
  });
});
