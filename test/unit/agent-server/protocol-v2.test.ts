// The pure parts of protocol v2 in the agent-server emulator: reading commands and filters, which
// events a filter passes (as the 1.15 client's matchesSubscription does), and what a run looks
// like as protocol events (protocols/v2/run-events.ts) with the buffer replaced by a list.
import { describe, expect, it } from "vitest";
import { answerOf, done, readCommand, refused } from "../../../emulators/agent-server/protocols/v2/envelope.ts";
import { channelOf, matches, readFilter } from "../../../emulators/agent-server/protocols/v2/filter.ts";
import { ProtocolRunEvents, type ProtocolEventSink } from "../../../emulators/agent-server/protocols/v2/run-events.ts";
import type { Run } from "../../../emulators/agent-server/runs/schema.ts";

describe("protocol v2 envelopes", () => {
  it("reads a command, and refuses a malformed one with the id when it has one", () => {
    expect(readCommand({ id: 3, method: "state.get" })).toEqual({ ok: true, command: { id: 3, method: "state.get", params: {} } });
    expect(readCommand({ id: 3, method: "run.start", params: { a: 1 } })).toMatchObject({ ok: true, command: { params: { a: 1 } } });
    for (const bad of [null, [], "x", { method: "run.start" }, { id: -1, method: "x" }, { id: 1.5, method: "x" }]) {
      expect(readCommand(bad)).toMatchObject({ ok: false, answer: { type: "error", id: null, error: "invalid_argument" } });
    }
    expect(readCommand({ id: 4 })).toMatchObject({ ok: false, answer: { id: 4 } });
    expect(readCommand({ id: 4, method: "x", params: [1] })).toMatchObject({ ok: false, answer: { id: 4 } });
  });

  it("answers with the result or the error, stamped with applied_through_seq", () => {
    expect(answerOf(2, done({ run_id: "r" }), 9)).toEqual({ type: "success", id: 2, result: { run_id: "r" }, meta: { applied_through_seq: 9 } });
    expect(answerOf(2, refused("no_such_run", "gone"), 0)).toEqual({
      type: "error",
      id: 2,
      error: "no_such_run",
      message: "gone",
      meta: { applied_through_seq: 0 },
    });
  });
});

describe("protocol v2 filters", () => {
  it("read channels, namespaces, depth and since as the description types them", () => {
    expect(readFilter({ channels: ["values", "custom:progress"], namespaces: [["a"]], depth: 1, since: 4 })).toEqual({
      ok: true,
      filter: { channels: ["values", "custom:progress"], namespaces: [["a"]], depth: 1 },
      since: 4,
    });
    for (const bad of [
      {},
      { channels: [] },
      { channels: ["debug"] },
      { channels: ["custom:"] },
      { channels: ["values"], depth: -1 },
      { channels: ["values"], since: "3" },
      { channels: ["values"], namespaces: ["a"] },
    ]) {
      expect(readFilter(bad).ok).toBe(false);
    }
  });

  it("pass an event by its channel, its namespace prefix (a dynamic suffix matched by name) and depth", () => {
    expect(channelOf("input.requested", {})).toBe("input");
    expect(channelOf("custom", { name: "progress" })).toBe("custom:progress");
    expect(channelOf("debug", {})).toBeUndefined();
    expect(matches({ channels: ["input"] }, "input.answered", [], {})).toBe(true);
    expect(matches({ channels: ["values"] }, "updates", [], {})).toBe(false);
    expect(matches({ channels: ["custom"] }, "custom", [], { name: "progress" })).toBe(true);
    expect(matches({ channels: ["custom:other"] }, "custom", [], { name: "progress" })).toBe(false);
    const child = { channels: ["values"], namespaces: [["fetcher"]] };
    expect(matches(child, "values", ["fetcher:abc-1"], {})).toBe(true);
    expect(matches(child, "values", ["other"], {})).toBe(false);
    expect(matches({ ...child, depth: 0 }, "values", ["fetcher:abc-1", "inner"], {})).toBe(false);
    expect(matches({ ...child, depth: 1 }, "values", ["fetcher:abc-1", "inner"], {})).toBe(true);
    expect(matches({ channels: ["values"], namespaces: [["fetcher:abc-2"]] }, "values", ["fetcher:abc-1"], {})).toBe(false);
  });
});

describe("a run as protocol v2 events", () => {
  const run = (kwargs: Record<string, unknown> = {}) => ({ run_id: "run-1", thread_id: "thread-1", kwargs }) as unknown as Run;
  const recording = (pending: readonly string[] = []) => {
    const written: { method: string; data: any }[] = [];
    const buffer: ProtocolEventSink = { append: (_t, _r, method, data) => void written.push({ method, data: data as any }) };
    return {
      written,
      events: new ProtocolRunEvents(
        buffer,
        () => pending,
        () => 1_000,
      ),
    };
  };

  it("says started, values and updates per step, then completed", () => {
    const { written, events } = recording();
    events.started(run(), "agent", 1);
    events.emitted(run(), { event: "metadata", data: { run_id: "run-1", attempt: 1 } });
    events.emitted(run(), { event: "values", data: { messages: [] } });
    events.emitted(run(), { event: "updates", data: { agent: { messages: ["m"] } } });
    events.finished(run(), "success", {});
    expect(written).toEqual([
      { method: "lifecycle", data: { event: "started", graph_name: "agent", run_id: "run-1", attempt: 1 } },
      { method: "values", data: { messages: [] } },
      { method: "updates", data: { node: "agent", values: { messages: ["m"] } } },
      { method: "lifecycle", data: { event: "completed", run_id: "run-1" } },
    ]);
  });

  it("turns a pause into input.requested and lifecycle interrupted, without __interrupt__ in values", () => {
    const { written, events } = recording();
    const interrupts = [{ id: "i1", value: { question: "ok?" } }];
    events.emitted(run(), { event: "updates", data: { __interrupt__: interrupts } });
    events.emitted(run(), { event: "values", data: { messages: [], __interrupt__: interrupts } });
    events.finished(run(), "interrupted", { interrupts });
    expect(written).toEqual([
      { method: "values", data: { messages: [] } },
      { method: "input.requested", data: { interrupt_id: "i1", payload: { question: "ok?" } } },
      { method: "lifecycle", data: { event: "interrupted", run_id: "run-1" } },
    ]);
  });

  it("says input.answered when a run resumes the pending interrupts, and failed with the error", () => {
    const { written, events } = recording(["i1"]);
    events.started(run({ command: { resume: "approve" } }), "approval", 1);
    events.finished(run(), "error", { error: { error: "ValueError", message: "bad" } });
    expect(written.map((w) => [w.method, w.data.event ?? w.data.interrupt_ids])).toEqual([
      ["input.answered", ["i1"]],
      ["lifecycle", "started"],
      ["lifecycle", "failed"],
    ]);
    expect(written[2]!.data.error).toBe("ValueError: bad");
  });
});
