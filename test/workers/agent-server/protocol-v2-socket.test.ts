// Protocol v2 over WebSocket against the emulator: the same commands in-band, subscriptions that
// replay the thread's latest run and then go live, an interrupt answered on the socket, the close
// codes the 1.15 client reads as final, and nothing left behind once a socket closes.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { stateObject } from "./clock.ts";
import { exports } from "cloudflare:workers";
import { AGENT_SERVER_URL, agentServer, createThread } from "./support.ts";
import { contents, join } from "./run-support.ts";
import { openSocket, succeed } from "./protocol-v2-support.ts";
import { MAX_FILTER_BYTES_PER_SOCKET, MAX_SUBSCRIPTIONS_PER_SOCKET } from "../../../emulators/agent-server/protocols/v2/subscriptions.ts";

const lifecycleOf = (m: any) => (m.type === "event" && m.method === "lifecycle" ? m.params.data.event : undefined);

/** How many protocol sockets the state object holds open on the thread. */
const openSockets = (threadId: string) =>
  runInDurableObject(stateObject(), (_state, ctx: DurableObjectState) => ctx.getWebSockets(`thread:${threadId}`).length);

/** How many subscriptions of the thread's sockets the state object keeps in its storage. */
const storedSubscriptions = (threadId: string) =>
  runInDurableObject(
    stateObject(),
    (_state, ctx: DurableObjectState) =>
      ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM protocol_subscriptions WHERE thread_id = ?", threadId).one().n,
  );

describe("protocol v2 over WebSocket", () => {
  it("subscribes, starts a run in-band and receives its events live, once each", async () => {
    const thread = await createThread();
    const ws = await openSocket(thread.thread_id);
    const subscribed = await ws.send("subscription.subscribe", { channels: ["lifecycle", "values", "updates", "input"] });
    expect(subscribed).toMatchObject({
      type: "success",
      id: 1,
      result: { subscription_id: expect.any(String), replayed_events: 0 },
      meta: { applied_through_seq: 0 },
    });
    const started = await ws.send("run.start", { assistant_id: "agent", input: { messages: [{ role: "user", content: "over a socket" }] } });
    expect(started.result.run_id).toEqual(expect.any(String));
    await ws.until((m) => lifecycleOf(m) === "completed");
    const events = ws.received.filter((m) => m.type === "event");
    expect(events.map((e) => e.method)).toEqual(["lifecycle", "values", "updates", "values", "lifecycle"]);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(events.length);
    expect(contents(events[3].params.data)).toEqual(["over a socket", "you said: over a socket"]);

    // A second subscription replays the latest run, only what its filter takes; an unsubscribed
    // one hears nothing more.
    const values = await ws.send("subscription.subscribe", { channels: ["values"] });
    expect(values.result.replayed_events).toBe(2);
    expect(await ws.send("subscription.unsubscribe", { subscription_id: subscribed.result.subscription_id })).toMatchObject({ type: "success", result: {} });
    expect(await ws.send("subscription.unsubscribe", { subscription_id: subscribed.result.subscription_id })).toMatchObject({
      type: "error",
      error: "no_such_subscription",
    });
    const before = ws.received.length;
    const again = await ws.send("run.start", { assistant_id: "agent", input: { messages: [{ role: "user", content: "again" }] } });
    await join(thread.thread_id, again.result.run_id);
    // The run's end is saved before its answer: the answer to a later command comes after its events.
    await ws.send("agent.getTree");
    expect(
      ws.received
        .slice(before)
        .filter((m) => m.type === "event")
        .map((e) => e.method),
    ).toEqual(["values", "values"]);
    ws.socket.close(1000, "done");
  });

  it("replays to each subscription only the events its filter takes, before its answer, in seq order", async () => {
    // As the 1.15 client does: run.start, then one subscription per projection, the lifecycle
    // watcher first, on a run that has already ended. The client hands an event to every
    // subscription whose filter takes it, the pending ones too, and starts reading a projection
    // once its answer came: a replay before that answer reaches its projection even if the run's
    // end, replayed to the watcher first, has paused it (protocol-v2-official-client.test.ts).
    const thread = await createThread();
    const ws = await openSocket(thread.thread_id);
    const started = await ws.send("run.start", { assistant_id: "agent", input: { messages: [{ role: "user", content: "quick" }] } });
    await join(thread.thread_id, started.result.run_id);
    const mark = ws.received.length;
    const watcher = await ws.send("subscription.subscribe", { channels: ["lifecycle", "input"] });
    const afterWatcher = ws.received.length;
    const values = await ws.send("subscription.subscribe", { channels: ["values", "lifecycle", "input"] });
    const methods = (from: number, to: number) => ws.received.slice(from, to).map((m) => (m.type === "event" ? m.method : m.type));
    expect(methods(mark, afterWatcher)).toEqual(["lifecycle", "lifecycle", "success"]);
    expect(methods(afterWatcher, ws.received.length)).toEqual(["lifecycle", "values", "values", "lifecycle", "success"]);
    expect([watcher.result.replayed_events, values.result.replayed_events]).toEqual([2, 4]);
    const seqs = ws.received.slice(afterWatcher, -1).map((e) => e.seq);
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    ws.socket.close(1000);
  });

  it("answers an interrupt with input.respond on the socket, and the run resumes to its end", async () => {
    const thread = await createThread();
    const ws = await openSocket(thread.thread_id);
    await ws.send("subscription.subscribe", { channels: ["lifecycle", "input", "values"] });
    await ws.send("run.start", { assistant_id: "approval", input: { messages: [{ role: "user", content: "ship it" }] } });
    const requested = await ws.until((m) => m.method === "input.requested");
    await ws.until((m) => lifecycleOf(m) === "interrupted");
    const respond = await ws.send("input.respond", { namespace: [], interrupt_id: requested.params.data.interrupt_id, response: "approve" });
    expect(respond.type).toBe("success");
    await ws.until((m) => lifecycleOf(m) === "completed");
    expect(ws.received.some((m) => m.method === "input.answered")).toBe(true);
    expect(contents((await succeed(thread.thread_id, "state.get")).values).at(-1)).toBe("published: draft: ship it");
    ws.socket.close(1000);
  });

  it("refuses in-band in the protocol's shape", async () => {
    const thread = await createThread();
    const ws = await openSocket(thread.thread_id);
    ws.socket.send("{not json");
    expect(await ws.until((m) => m.type === "error" && m.id === null)).toMatchObject({ error: "invalid_argument" });
    expect(await ws.send("run.teleport")).toMatchObject({ type: "error", error: "unknown_command" });
    ws.socket.send(`{"id":9,"method":"run.start","params":{"input":${"[".repeat(5_000)}${"]".repeat(5_000)}}}`);
    expect(await ws.until((m) => m.type === "error" && m.id === null && m.message.includes("nested"))).toMatchObject({ error: "invalid_argument" });
    expect(await ws.send("subscription.subscribe", { channels: ["debug"] })).toMatchObject({ type: "error", error: "invalid_argument" });
    ws.socket.close(1000);

    // The socket's path without an upgrade is no event stream (that one is a POST).
    const plain = await agentServer("GET", `/threads/${thread.thread_id}/stream/events`);
    expect([plain.status, plain.headers.get("upgrade"), typeof plain.body.detail]).toEqual([426, "websocket", "string"]);
  });

  it("accepts a socket on a thread id no thread has yet: its first run.start creates the thread, as over HTTP", async () => {
    // The 1.15 client's `threads.stream({assistantId})` makes the thread id and opens the socket before any command.
    const threadId = crypto.randomUUID();
    const ws = await openSocket(threadId);
    expect(await ws.send("state.get")).toMatchObject({ type: "error", error: "invalid_argument", message: expect.stringContaining("not found") });
    await ws.send("subscription.subscribe", { channels: ["lifecycle", "values"] });
    const started = await ws.send("run.start", { assistant_id: "agent", input: { messages: [{ role: "user", content: "new thread" }] } });
    expect(started.type).toBe("success");
    await ws.until((m) => lifecycleOf(m) === "completed");
    expect((await agentServer("GET", `/threads/${threadId}`)).status).toBe(200);
    expect(contents((await ws.send("state.get")).result.values)).toEqual(["new thread", "you said: new thread"]);
    ws.socket.close(1000);
  });

  it("refuses a thread id that is no UUID before the upgrade, with the REST routes' 422", async () => {
    const res = await exports.default.fetch(new Request(`${AGENT_SERVER_URL}/threads/rt-not-a-uuid-1/stream/events`, { headers: { upgrade: "websocket" } }));
    expect([res.status, res.webSocket]).toEqual([422, null]);
    expect(await res.json()).toEqual({ detail: [{ loc: ["path", "thread_id"], msg: expect.any(String), type: expect.any(String), input: "rt-not-a-uuid-1" }] });
  });

  it("closes a deleted thread's sockets with 4404, and holds none of them afterwards", async () => {
    const thread = await createThread();
    const ws = await openSocket(thread.thread_id);
    await ws.send("subscription.subscribe", { channels: ["lifecycle"] });
    expect((await agentServer("DELETE", `/threads/${thread.thread_id}`)).status).toBe(200);
    expect(await ws.closedWith()).toEqual({ code: 4404, reason: expect.stringContaining("deleted") });
    await vi.waitFor(async () => expect(await openSockets(thread.thread_id)).toBe(0), { timeout: 30_000, interval: 20 });
  });

  it(`answers every subscribe: a 17 KB filter is taken, and beyond ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions or ${MAX_FILTER_BYTES_PER_SOCKET / 1024} KB of filters the socket is refused in-band and stays usable`, async () => {
    const thread = await createThread();
    const ws = await openSocket(thread.thread_id);
    const big = { channels: ["values"], namespaces: [["n".repeat(17 * 1024)]] };
    const taken = await ws.send("subscription.subscribe", big);
    expect(taken).toMatchObject({ type: "success", result: { subscription_id: expect.any(String) } });
    // Filters add up: the fourth 17 KB one passes the socket's bound.
    const more = [await ws.send("subscription.subscribe", big), await ws.send("subscription.subscribe", big)];
    expect(more.map((m) => m.type)).toEqual(["success", "success"]);
    const tooMuch = await ws.send("subscription.subscribe", big);
    expect(tooMuch).toMatchObject({ type: "error", id: expect.any(Number), error: "invalid_argument", message: expect.stringContaining("KB") });
    // One given back makes room again.
    expect((await ws.send("subscription.unsubscribe", { subscription_id: taken.result.subscription_id })).type).toBe("success");
    expect((await ws.send("subscription.subscribe", big)).type).toBe("success");

    const small = await openSocket(thread.thread_id);
    const answers = [];
    for (let i = 0; i <= MAX_SUBSCRIPTIONS_PER_SOCKET; i++) answers.push(await small.send("subscription.subscribe", { channels: ["lifecycle"] }));
    expect(answers.slice(0, MAX_SUBSCRIPTIONS_PER_SOCKET).every((a) => a.type === "success")).toBe(true);
    expect(answers.at(-1)).toMatchObject({ type: "error", error: "invalid_argument", message: expect.stringContaining(String(MAX_SUBSCRIPTIONS_PER_SOCKET)) });
    // The socket still works, and its subscriptions still hear the thread.
    await small.send("run.start", { assistant_id: "agent", input: { messages: [{ role: "user", content: "still here" }] } });
    await small.until((m) => lifecycleOf(m) === "completed");
    ws.socket.close(1000);
    small.socket.close(1000);
  });

  it("leaves nothing behind when the client closes", async () => {
    const thread = await createThread();
    const ws = await openSocket(thread.thread_id);
    await ws.send("subscription.subscribe", { channels: ["values"] });
    expect(await openSockets(thread.thread_id)).toBe(1);
    ws.socket.close(1000, "bye");
    // The close reaches the object over the runtime's own connection: waited for, bounded by the test's timeout.
    await vi.waitFor(async () => expect(await openSockets(thread.thread_id)).toBe(0), { timeout: 30_000, interval: 20 });
    await vi.waitFor(async () => expect(await storedSubscriptions(thread.thread_id)).toBe(0), { timeout: 30_000, interval: 20 });
  });
});
