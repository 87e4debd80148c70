// Protocol v2 in the agent-server emulator (the 2026 description's "Streaming" tag, the 1.15
// client's `threads.stream()`): commands over HTTP, the SSE event stream with replay from `since`
// and heartbeats on the object's clock, interrupts answered with input.respond, and the bound on
// what a thread buffers. The sockets are in protocol-v2-socket.test.ts.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { PROTOCOL_EVENT_BYTES_PER_THREAD, ProtocolEventBuffer } from "../../../emulators/agent-server/protocols/v2/event-buffer.ts";
import { PROTOCOL_HEARTBEAT_MS } from "../../../emulators/agent-server/protocols/v2/event-stream.ts";
import type { AgentServerState } from "../../../emulators/agent-server/state-object.ts";
import { advanceClock, stateObject } from "./clock.ts";
import { agentServer, createThread, send } from "./support.ts";
import { contents, join } from "./run-support.ts";
import { command, isTerminal, openProtocolEvents, succeed } from "./protocol-v2-support.ts";

const hello = { messages: [{ role: "user", content: "hello" }] };
const CHANNELS = ["lifecycle", "input", "values", "updates"];

describe("protocol v2 commands over HTTP", () => {
  it("run.start creates the thread, and the stream replays the whole run with event: method, id: seq", async () => {
    const threadId = crypto.randomUUID();
    const started = await command(threadId, 7, "run.start", { assistant_id: "agent", input: hello });
    expect(started.status).toBe(200);
    expect(started.body).toEqual({ type: "success", id: 7, result: { run_id: expect.any(String) }, meta: { applied_through_seq: expect.any(Number) } });
    await join(threadId, started.body.result.run_id);

    const { events } = await openProtocolEvents(threadId, { channels: CHANNELS });
    const end = await events.until(isTerminal);
    await events.drop();
    const seen = events.seen;
    expect(seen.map((e) => e.event)).toEqual(["lifecycle", "values", "updates", "values", "lifecycle"]);
    for (const e of seen) {
      expect(e.data).toMatchObject({
        type: "event",
        method: e.event,
        seq: Number(e.id),
        event_id: e.id,
        params: { namespace: [], timestamp: expect.any(Number) },
      });
    }
    expect(seen[0]!.data.params.data).toMatchObject({ event: "started", graph_name: "agent", run_id: started.body.result.run_id });
    expect(seen[2]!.data.params.data).toEqual({ node: "agent", values: { messages: [expect.objectContaining({ type: "ai", content: "you said: hello" })] } });
    expect(contents(seen[3]!.data.params.data)).toEqual(["hello", "you said: hello"]);
    expect(end.data.params.data).toMatchObject({ event: "completed" });
    const seqs = seen.map((e) => e.data.seq);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));

    // `since`: only what came after it, then live.
    const resumed = await openProtocolEvents(threadId, { channels: CHANNELS, since: seqs[2] });
    await resumed.events.until(isTerminal);
    await resumed.events.drop();
    expect(resumed.events.seen.map((e) => e.data.seq)).toEqual(seqs.slice(3));

    // A filter: lifecycle only.
    const lifecycle = await openProtocolEvents(threadId, { channels: ["lifecycle"] });
    await lifecycle.events.until(isTerminal);
    await lifecycle.events.drop();
    expect(lifecycle.events.seen.map((e) => e.data.params.data.event)).toEqual(["started", "completed"]);
  });

  it("answers the queries: agent.getTree, state.get, state.listCheckpoints; applied_through_seq follows the buffer", async () => {
    const threadId = crypto.randomUUID();
    const { run_id } = await succeed(threadId, "run.start", { assistant_id: "pipeline", input: hello });
    await join(threadId, run_id);
    const tree = await command(threadId, 2, "agent.getTree");
    expect(tree.body.result).toEqual({ tree: { namespace: [], status: "completed", graph_name: "pipeline", metadata: { run_id } } });
    const state = await succeed(threadId, "state.get", { namespace: [], keys: ["messages"] });
    expect(contents(state.values)).toHaveLength(3);
    expect(state.checkpoint).toEqual({ id: expect.any(String) });
    const { checkpoints } = await succeed(threadId, "state.listCheckpoints", { limit: 2 });
    expect(checkpoints).toHaveLength(2);
    expect(checkpoints[0]).toMatchObject({ id: state.checkpoint.id, timestamp: expect.any(String), step: expect.any(Number) });
    // Every answer names the highest seq buffered: the run's last event.
    const { events } = await openProtocolEvents(threadId, { channels: ["lifecycle"] });
    const end = await events.until(isTerminal);
    await events.drop();
    expect(tree.body.meta.applied_through_seq).toBe(end.data.seq);
  });

  it("state.fork runs again from an earlier checkpoint; input.inject queues the message as a run", async () => {
    const threadId = crypto.randomUUID();
    const first = await succeed(threadId, "run.start", { assistant_id: "agent", input: hello });
    await join(threadId, first.run_id);
    const { checkpoints } = await succeed(threadId, "state.listCheckpoints", {});
    const beforeReply = checkpoints.find((c: any) => c.metadata.source === "loop" && c.step === 0);
    const forked = await succeed(threadId, "state.fork", { checkpoint_id: beforeReply.id });
    expect(forked).toEqual({ run_id: expect.any(String), thread_id: threadId });
    await join(threadId, forked.run_id);
    expect(contents((await succeed(threadId, "state.get")).values)).toEqual(["hello", "you said: hello"]);

    expect(await succeed(threadId, "input.inject", { namespace: [], message: { role: "user", content: "and more" } })).toEqual({});
    const tree = await succeed(threadId, "agent.getTree");
    await join(threadId, tree.tree.metadata.run_id);
    expect(contents((await succeed(threadId, "state.get")).values).slice(-2)).toEqual(["and more", "you said: and more"]);
  });

  it("refuses in the protocol's own shapes", async () => {
    const thread = await createThread();
    const raw = await send("POST", `/threads/${thread.thread_id}/commands`, { rawBody: "{not json" });
    expect([raw.status, await raw.json()]).toEqual([400, { type: "error", id: null, error: "invalid_argument", message: expect.any(String) }]);
    const noId = await agentServer("POST", `/threads/${thread.thread_id}/commands`, { body: { method: "run.start" } });
    expect([noId.status, noId.body.id, noId.body.error]).toEqual([400, null, "invalid_argument"]);
    const noMethod = await agentServer("POST", `/threads/${thread.thread_id}/commands`, { body: { id: 3 } });
    expect([noMethod.status, noMethod.body.id]).toEqual([400, 3]);
    expect((await command(thread.thread_id, 4, "run.teleport")).body).toMatchObject({ type: "error", id: 4, error: "unknown_command" });
    expect((await command(thread.thread_id, 5, "subscription.subscribe", { channels: ["values"] })).body.error).toBe("not_supported");
    expect((await command(thread.thread_id, 6, "run.start", { input: hello })).body.error).toBe("invalid_argument");
    expect((await command(thread.thread_id, 7, "run.start", { assistant_id: "no-such-graph" })).body).toMatchObject({
      error: "invalid_argument",
      message: expect.stringContaining("no-such-graph"),
    });
    expect((await command(thread.thread_id, 8, "agent.getTree", { run_id: crypto.randomUUID() })).body.error).toBe("no_such_run");
    expect((await command(thread.thread_id, 9, "state.fork", { checkpoint_id: crypto.randomUUID() })).body.error).toBe("no_such_checkpoint");
    expect((await command(thread.thread_id, 10, "state.get", { namespace: ["child"] })).body.error).toBe("no_such_namespace");
    expect((await command(thread.thread_id, 11, "input.respond", { namespace: [], interrupt_id: "nope", response: 1 })).body.error).toBe("no_such_interrupt");

    const badStream = await agentServer("POST", `/threads/${thread.thread_id}/stream/events`, { body: { channels: [] } });
    expect([badStream.status, typeof badStream.body.detail]).toEqual([400, "string"]);
    const badChannel = await agentServer("POST", `/threads/${thread.thread_id}/stream/events`, { body: { channels: ["debug"] } });
    expect(badChannel.status).toBe(400);
    const badSince = await agentServer("POST", `/threads/${thread.thread_id}/stream/events`, { body: { channels: ["values"], since: -1 } });
    expect(badSince.status).toBe(400);
    const notUuid = await agentServer("POST", "/threads/not-a-uuid/commands", { body: { id: 1, method: "state.get" } });
    expect(notUuid.status).toBe(422);
  });
});

describe("protocol v2 interrupts", () => {
  it("an interrupt arrives as input.requested, and input.respond resumes the run to its end", async () => {
    const threadId = crypto.randomUUID();
    const { run_id } = await succeed(threadId, "run.start", { assistant_id: "approval", input: { messages: [{ role: "user", content: "launch on Friday" }] } });
    await join(threadId, run_id);
    const { events } = await openProtocolEvents(threadId, { channels: CHANNELS });
    const interrupted = await events.until(isTerminal);
    expect(interrupted.data.params.data.event).toBe("interrupted");
    const requested = events.seen.find((e) => e.event === "input.requested")!;
    expect(requested.data.params.data).toEqual({ interrupt_id: expect.any(String), payload: expect.objectContaining({ question: "Approve this draft?" }) });
    expect(events.seen.filter((e) => e.event === "values").every((e) => !("__interrupt__" in e.data.params.data))).toBe(true);
    expect((await succeed(threadId, "agent.getTree")).tree.status).toBe("interrupted");

    // The stream stays open: the resumed run's events arrive on it, live.
    const resumed = await succeed(threadId, "input.respond", { namespace: [], interrupt_id: requested.data.params.data.interrupt_id, response: "approve" });
    expect(resumed).toEqual({ run_id: expect.any(String) });
    const answered = await events.until((e) => e.event === "input.answered");
    expect(answered.data.params.data).toEqual({ interrupt_ids: [requested.data.params.data.interrupt_id] });
    const completed = await events.until(isTerminal);
    await events.drop();
    expect(completed.data.params.data.event).toBe("completed");
    const state = await succeed(threadId, "state.get");
    expect(contents(state.values)).toEqual(["launch on Friday", "draft: launch on Friday", "review: approved", "published: draft: launch on Friday"]);
  });
});

describe("protocol v2 event streams", () => {
  it(`write a heartbeat every ${PROTOCOL_HEARTBEAT_MS} ms of the object's clock, and leave nothing behind when closed`, async () => {
    const thread = await createThread();
    const res = await send("POST", `/threads/${thread.thread_id}/stream/events`, { body: { channels: ["values"] } });
    expect([res.status, res.headers.get("content-type")]).toEqual([200, "text/event-stream; charset=utf-8"]);
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = "";
    const readUntil = async (wanted: string, count: number) => {
      while (text.split(wanted).length - 1 < count) text += (await reader.read()).value ?? "";
    };
    await readUntil(": connected\n", 1);
    const listeners = () => listenerCount(thread.thread_id);
    expect(await listeners()).toBe(1);
    await advanceClock(PROTOCOL_HEARTBEAT_MS);
    await readUntil(": heartbeat\n", 1);
    await advanceClock(PROTOCOL_HEARTBEAT_MS);
    await readUntil(": heartbeat\n", 2);
    await reader.cancel();
    // The object learns of the hang-up when it next writes: each try lets a heartbeat's time pass.
    await vi.waitFor(
      async () => {
        await advanceClock(PROTOCOL_HEARTBEAT_MS);
        expect(await listeners()).toBe(0);
      },
      { timeout: 30_000, interval: 20 },
    );
  });

  it("buffer a bounded number of events per thread, the oldest going first", async () => {
    await runInDurableObject(stateObject(), (_state: AgentServerState, ctx: DurableObjectState) => {
      const buffer = new ProtocolEventBuffer(ctx.storage.sql, () => {}, { events: 3 });
      const threadId = crypto.randomUUID();
      const seqs = [1, 2, 3, 4, 5].map((n) => buffer.append(threadId, "run-1", "values", { n }, 0).seq);
      expect(buffer.countOfThread(threadId)).toBe(3);
      expect(buffer.replay(threadId, 0).map((e) => e.seq)).toEqual(seqs.slice(2));
      expect(buffer.latestSeq(threadId)).toBe(seqs[4]);
      buffer.deleteThread(threadId);
      expect(buffer.countOfThread(threadId)).toBe(0);
    });
  });

  it(`buffer a bounded number of bytes per thread too (${PROTOCOL_EVENT_BYTES_PER_THREAD / 1024 / 1024} MiB), the oldest going first, the newest kept whatever its size`, async () => {
    await runInDurableObject(stateObject(), (_state: AgentServerState, ctx: DurableObjectState) => {
      const buffer = new ProtocolEventBuffer(ctx.storage.sql, () => {}, { bytes: 1_000 });
      const threadId = crypto.randomUUID();
      const other = crypto.randomUUID();
      buffer.append(other, "run-0", "values", { text: "x".repeat(900) }, 0);
      const seqs = [1, 2, 3, 4, 5].map((n) => buffer.append(threadId, "run-1", "values", { n, text: "x".repeat(250) }, 0).seq);
      // Each event's params are about 300 bytes of JSON: three fit in 1,000.
      expect(buffer.replay(threadId, 0).map((e) => e.seq)).toEqual(seqs.slice(2));
      expect(buffer.bytesOfThread(threadId)).toBeLessThanOrEqual(1_000);
      // Another thread's events count for that thread only.
      expect(buffer.countOfThread(other)).toBe(1);
      const huge = buffer.append(threadId, "run-2", "values", { text: "y".repeat(5_000) }, 0);
      expect(buffer.replay(threadId, 0).map((e) => e.seq)).toEqual([huge.seq]);
      // Without `since`, the latest run from its first event still buffered.
      expect(buffer.replay(threadId).map((e) => e.seq)).toEqual([huge.seq]);
      expect(buffer.latestSeq(threadId)).toBe(huge.seq);
    });
  });
});

/** How many SSE streams listen to the thread's protocol events, read inside the state object. */
function listenerCount(threadId: string): Promise<number> {
  return runInDurableObject(stateObject(), (state: AgentServerState) => state.protocol().listenerCount(threadId));
}
