// Issue 32, finding 6: long polls were cut at UPSTREAM_TIMEOUT_MS (30 s). The timeout is the wait
// for the first byte of an answer, sized per operation from the upstream's documented maximums
// (src/gateway/upstream-timeout.ts), and a cut ends the upstream call. Time is the gateway's fake
// timers: no test waits for it.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { MAX_WAIT_SECONDS } from "../../../emulators/control-plane/oauth/flow.ts";
import { firstByteTimeoutMs, LONG_POLLS } from "../../../src/gateway/upstream-timeout.ts";
import { authenticate, createProvider, follow, providerBody } from "../control-plane/oauth-support.ts";
import { freshWorkspace, workspaceKey } from "../control-plane/support.ts";
import { gatewayWith } from "../support/custom-gateway.ts";
import { freshIdentity, keyed } from "../support/requests.ts";

afterEach(() => vi.useRealTimers());

const ORDINARY_MS = 30_000;

/** An upstream that never answers, handing each request it got to the test. */
function silentUpstream() {
  const seen: Request[] = [];
  let reached!: () => void;
  const called = new Promise<void>((resolve) => (reached = resolve));
  const fetcher = { fetch: (request: Request) => (seen.push(request), reached(), new Promise<Response>(() => {})) } as unknown as Fetcher;
  return { seen, called, fetcher };
}

/** Whether a promise has settled, read without waiting for it. */
function watch<T>(promise: Promise<T>) {
  const state = { settled: false };
  void promise.then(() => (state.settled = true));
  return state;
}

describe("the wait for an upstream's first byte", () => {
  it("cuts an ordinary call at UPSTREAM_TIMEOUT_MS with 504, and ends the upstream call with it", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const upstream = silentUpstream();
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: String(ORDINARY_MS), CONTROL_PLANE: upstream.fetcher });
    const answered = send("/v2/deployments", { headers: keyed(freshIdentity()) });
    const state = watch(answered);
    await upstream.called;
    await vi.advanceTimersByTimeAsync(ORDINARY_MS - 1);
    expect(state.settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const res = await answered;
    expect(res.status).toBe(504);
    expect(await res.json()).toMatchObject({ detail: `The control-plane upstream did not answer within ${ORDINARY_MS} ms.` });
    // Nothing is left waiting upstream for an answer no one will read.
    expect(upstream.seen[0]!.signal.aborted).toBe(true);
  });

  it.each(["GET", "HEAD"])("gives %s /v2/auth/wait/{auth_id} its documented 60 s hold on top, then cuts it", async (method) => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const upstream = silentUpstream();
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: String(ORDINARY_MS), CONTROL_PLANE: upstream.fetcher });
    const answered = send(`/v2/auth/wait/${crypto.randomUUID()}?timeout=60`, { method, headers: keyed(freshIdentity()) });
    const state = watch(answered);
    await upstream.called;
    await vi.advanceTimersByTimeAsync(60_000 + ORDINARY_MS - 1);
    expect(state.settled).toBe(false);
    expect(upstream.seen[0]!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await answered).status).toBe(504);
    expect(upstream.seen[0]!.signal.aborted).toBe(true);
  });

  it("is sized from the control plane's bound on the wait, and for nothing else", () => {
    const settings = { upstreamTimeoutMs: ORDINARY_MS, longPollHoldMs: 3_600_000 };
    const wait = LONG_POLLS.find((poll) => poll.path.test("/v2/auth/wait/x"))!;
    expect(wait.holdMs).toBeGreaterThanOrEqual(MAX_WAIT_SECONDS * 1000);
    expect(firstByteTimeoutMs(settings, { upstream: "control-plane", path: "/v2/auth/wait/x" }, "GET")).toBe(MAX_WAIT_SECONDS * 1000 + ORDINARY_MS);
    for (const [upstream, path, method] of [
      ["control-plane", "/v2/auth/wait/x", "POST"],
      ["control-plane", "/v2/auth/wait", "GET"],
      ["control-plane", "/v2/auth/wait/x/y", "GET"],
      ["hosted-api", "/v2/auth/wait/x", "GET"],
      ["hosted-api", "/threads/x/runs/wait", "POST"],
      ["agent-server", "/threads/x/runs/wait", "GET"],
      ["agent-server", "/threads/x/runs/y/stream", "GET"],
      ["agent-server", "/threads/x/runs/y/join/z", "GET"],
    ] as const) {
      expect(firstByteTimeoutMs(settings, { upstream, path }, method), `${method} ${upstream} ${path}`).toBe(ORDINARY_MS);
    }
  });
});

describe("a run's join and wait on the agent server: held for LONG_POLL_HOLD_MS, not cut at the header timeout", () => {
  const HOLD_MS = 120_000;
  it.each([
    ["GET", "/threads/{thread_id}/runs/{run_id}/join"],
    ["HEAD", "/threads/{thread_id}/runs/{run_id}/join"],
    ["POST", "/runs/wait"],
    ["POST", "/threads/{thread_id}/runs/wait"],
  ])("%s %s: waits LONG_POLL_HOLD_MS on top of UPSTREAM_TIMEOUT_MS for the headers, then cuts it 504", async (method, template) => {
    const path = `/agent-server${template.replace(/\{\w+\}/g, () => crypto.randomUUID())}`;
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    const upstream = silentUpstream();
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: String(ORDINARY_MS), LONG_POLL_HOLD_MS: String(HOLD_MS), AGENT_SERVER: upstream.fetcher });
    const body = method === "POST" ? JSON.stringify({ assistant_id: "agent" }) : undefined;
    const answered = send(path, { method, body, headers: { ...keyed(freshIdentity()), ...(body && { "content-type": "application/json" }) } });
    const state = watch(answered);
    await upstream.called;
    // Past the header timeout: a run still going is not cut.
    await vi.advanceTimersByTimeAsync(HOLD_MS + ORDINARY_MS - 1);
    expect(state.settled).toBe(false);
    expect(upstream.seen[0]!.signal.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect((await answered).status).toBe(504);
    expect(upstream.seen[0]!.signal.aborted).toBe(true);
  });

  it("holds for an hour unless LONG_POLL_HOLD_MS says otherwise", () => {
    const join = { upstream: "agent-server", path: "/threads/x/runs/y/join" } as const;
    expect(firstByteTimeoutMs({ upstreamTimeoutMs: ORDINARY_MS, longPollHoldMs: 3_600_000 }, join, "GET")).toBe(3_600_000 + ORDINARY_MS);
    expect(firstByteTimeoutMs({ upstreamTimeoutMs: ORDINARY_MS, longPollHoldMs: 5_000 }, join, "GET")).toBe(5_000 + ORDINARY_MS);
  });
});

describe("the control plane's auth wait through the gateway", () => {
  it("answers `completed` when the user's step comes 59 s into a 60 s wait (the gateway's clock moved, the emulator's real)", async () => {
    const workspace = freshWorkspace();
    await createProvider(workspace, providerBody("github"));
    const started = await authenticate(workspace, { provider: "github", scopes: [] });
    expect(started.status).toBe(200);

    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout"] });
    let reached!: () => void;
    const called = new Promise<void>((resolve) => (reached = resolve));
    const controlPlane = { fetch: (request: Request) => (reached(), env.CONTROL_PLANE!.fetch(request)) } as unknown as Fetcher;
    const send = gatewayWith({ UPSTREAM_TIMEOUT_MS: String(ORDINARY_MS), CONTROL_PLANE: controlPlane });
    const waiting = send(`/v2/auth/wait/${started.body.auth_id}?timeout=60`, {
      headers: { "cf-connecting-ip": freshIdentity().ip, "x-tenant-id": workspace, "x-api-key": workspaceKey(workspace) },
    });
    await called;
    // Past the old 30 s cut: the emulator still holds the wait, as its API allows.
    await vi.advanceTimersByTimeAsync(59_000);
    expect((await follow(started.body.url)).status).toBe(200);
    const res = await waiting;
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: "completed", token: expect.any(String) });
  });
});
