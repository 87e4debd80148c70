import { describe, expect, it } from "vitest";
import { EventQueue } from "../../../emulators/agent-server/runs/event-queue.ts";
import type { LoggedEvent } from "../../../emulators/agent-server/runs/logged-event.ts";
import { loggedEventStream } from "../../../emulators/agent-server/runs/event-stream.ts";
import { readLastEventId } from "../../../emulators/agent-server/runs/query-schema.ts";

describe("readLastEventId", () => {
  it("reads an event id, -1 or - as from the first event, nothing as unset", () => {
    expect(readLastEventId("42")).toEqual({ ok: true, after: 42 });
    expect(readLastEventId(" 7 ")).toEqual({ ok: true, after: 7 });
    expect(readLastEventId("-1")).toEqual({ ok: true, after: 0 });
    expect(readLastEventId("-")).toEqual({ ok: true, after: 0 });
    expect(readLastEventId(undefined)).toEqual({ ok: true, after: undefined });
    expect(readLastEventId("")).toEqual({ ok: true, after: undefined });
  });

  it("refuses what cannot be an id of these streams, as a 422 on the header", () => {
    for (const text of ["1700000000000-0", "abc", "1.5", "-2"]) {
      expect(readLastEventId(text)).toMatchObject({ ok: false, error: { type: "value_error", loc: ["header", "Last-Event-ID"], input: text } });
    }
  });
});

describe("EventQueue", () => {
  it("hands over what was pushed, in order, then what is pushed while waiting, until it ends", async () => {
    const queue = new EventQueue<number>();
    queue.push(1);
    queue.push(2);
    const drained: number[] = [];
    const done = (async () => {
      for await (const item of queue.drain()) drained.push(item);
    })();
    await Promise.resolve();
    queue.push(3);
    queue.end();
    queue.push(4); // after the end: dropped
    await done;
    expect(drained).toEqual([1, 2, 3]);
    expect(queue.ended).toBe(true);
  });
});

describe("loggedEventStream", () => {
  const event = (seq: number): LoggedEvent => ({ seq, runId: "r", scope: "run", event: "updates", data: { n: seq } });

  it("sends the replay, then what comes live, with ids, until the source ends", async () => {
    const queue = new EventQueue<LoggedEvent>();
    const res = loggedEventStream({ replay: [event(1)], live: { queue, stop: () => queue.end() }, withIds: true, waitUntil: () => {} });
    queue.push(event(2));
    queue.end();
    // It opens with a comment, so its headers go out before any event (emulators/shared/sse.ts).
    expect(await res.text()).toBe(': connected\nevent: updates\ndata: {"n":1}\nid: 1\n\nevent: updates\ndata: {"n":2}\nid: 2\n\n');
  });

  it("stops listening when its reader goes away", async () => {
    const queue = new EventQueue<LoggedEvent>();
    let stopped = false;
    const res = loggedEventStream({ replay: [event(1)], live: { queue, stop: () => ((stopped = true), queue.end()) }, withIds: false, waitUntil: () => {} });
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
    expect(stopped).toBe(true);
  });
});
