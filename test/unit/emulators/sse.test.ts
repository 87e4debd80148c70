import { afterEach, describe, expect, it, vi } from "vitest";
import { encodeComment, encodeEvent, HEARTBEAT_MS, parseEvents, streamEvents } from "../../../emulators/shared/sse.ts";

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

describe("server-sent events on the wire", () => {
  it("writes event: <type>\\ndata: <json>\\n\\n, one data line whatever the payload holds", () => {
    expect(text(encodeEvent({ event: "updates", data: { agent: { messages: ["a\nb"] } } }))).toBe('event: updates\ndata: {"agent":{"messages":["a\\nb"]}}\n\n');
    expect(text(encodeEvent({ event: "end", data: undefined }))).toBe("event: end\ndata: null\n\n");
  });

  it("writes an id line after the data when the event has one", () => {
    expect(text(encodeEvent({ event: "values", data: {}, id: "1-0" }))).toBe("event: values\ndata: {}\nid: 1-0\n\n");
  });

  it("writes a comment as one line without the blank line that would end an event", () => {
    expect(text(encodeComment("heartbeat"))).toBe(": heartbeat\n");
  });

  it("reads comments as nothing, alone or before an event", () => {
    const wire =
      ": connected\n" + text(encodeEvent({ event: "a", data: 1 })) + ": heartbeat\n\n" + ": heartbeat\n" + text(encodeEvent({ event: "b", data: 2, id: "3" }));
    expect(parseEvents(wire).events).toEqual([
      { event: "a", data: 1 },
      { event: "b", data: 2, id: "3" },
    ]);
  });

  it("reads complete events back (with their ids) and keeps an incomplete one for later", () => {
    const wire =
      text(encodeEvent({ event: "metadata", data: { run_id: "r" } })) + text(encodeEvent({ event: "values", data: [1], id: "7" })) + "event: values\ndata: {";
    expect(parseEvents(wire)).toEqual({
      events: [
        { event: "metadata", data: { run_id: "r" } },
        { event: "values", data: [1], id: "7" },
      ],
      rest: "event: values\ndata: {",
    });
  });
});

describe("streamEvents", () => {
  it("answers 200 text/event-stream with the given headers and closes when the producer is done", async () => {
    const kept: Promise<unknown>[] = [];
    const res = streamEvents(
      async (sink) => {
        sink.send({ event: "a", data: 1 });
        await Promise.resolve();
        sink.send({ event: "b", data: 2 });
      },
      { headers: { "content-location": "/here" }, waitUntil: (work) => kept.push(work) },
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(res.headers.get("content-location")).toBe("/here");
    expect(parseEvents(await res.text()).events).toEqual([
      { event: "a", data: 1 },
      { event: "b", data: 2 },
    ]);
    expect(kept).toHaveLength(1);
  });

  it("runs the producer to its end after the reader hung up, and never waits for a reader", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let sent = 0;
    let work!: Promise<unknown>;
    const res = streamEvents(
      async (sink) => {
        sink.send({ event: "first", data: null });
        await gate;
        // Nobody reads any more: these are dropped, and sending does not block or throw.
        for (let i = 0; i < 1000; i++) sink.send({ event: "more", data: i });
        sent = 1000;
      },
      { waitUntil: (w) => (work = w) },
    );
    const reader = res.body!.getReader();
    expect(text((await reader.read()).value!)).toBe(": connected\n");
    expect(text((await reader.read()).value!)).toContain("event: first");
    await reader.cancel();
    release();
    await work;
    expect(sent).toBe(1000);
  });
});

describe("streamEvents before and between events", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("writes a comment at once, before the producer has anything, so the headers go out with it", async () => {
    const res = streamEvents(() => new Promise<void>(() => {}), { waitUntil: () => {} });
    const reader = res.body!.getReader();
    expect(text((await reader.read()).value!)).toBe(": connected\n");
    await reader.cancel();
  });

  it("writes a heartbeat comment every HEARTBEAT_MS while the producer is quiet, and none after the stream ended", async () => {
    vi.useFakeTimers();
    let finish!: () => void;
    const done = new Promise<void>((resolve) => (finish = resolve));
    const res = streamEvents(() => done, { waitUntil: () => {} });
    const reader = res.body!.getReader();
    await reader.read(); // ": connected"
    vi.advanceTimersByTime(HEARTBEAT_MS - 1);
    vi.advanceTimersByTime(1);
    expect(text((await reader.read()).value!)).toBe(": heartbeat\n");
    vi.advanceTimersByTime(HEARTBEAT_MS);
    expect(text((await reader.read()).value!)).toBe(": heartbeat\n");
    finish();
    expect(await reader.read()).toEqual({ done: true, value: undefined });
    expect(vi.getTimerCount()).toBe(0);
  });
});
