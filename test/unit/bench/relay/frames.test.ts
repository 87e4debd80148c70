import { describe, expect, it } from "vitest";
import { answeredId, eventFrame, paddedCommand, smallCommand, subscribeCommand, successFrame } from "../../../../bench/relay/frames.ts";
import { FRAME_SCALE, framesFor, splitFrames, WORKLOADS } from "../../../../bench/relay/workloads.ts";

describe("the frames", () => {
  it("are protocol v2 envelopes: a command {id, method, params}, a success, an event", () => {
    expect(JSON.parse(smallCommand(7))).toEqual({ id: 7, method: "agent.getTree", params: {} });
    expect(JSON.parse(subscribeCommand(1))).toMatchObject({ id: 1, method: "subscription.subscribe" });
    expect(JSON.parse(successFrame(7))).toEqual({ type: "success", id: 7, result: {}, meta: { applied_through_seq: 0 } });
    expect(JSON.parse(eventFrame(3, 256))).toMatchObject({ type: "event", event_id: "3", seq: 3, method: "messages" });
  });

  it("are padded to the size asked for, whatever the id", () => {
    for (const id of [1, 99_999]) {
      expect(paddedCommand(id, 8192)).toHaveLength(8192);
      expect(JSON.parse(paddedCommand(id, 8192))).toMatchObject({ id, method: "run.start" });
      expect(eventFrame(id, 256)).toHaveLength(256);
    }
    // Smaller than the envelope: the envelope alone.
    expect(JSON.parse(paddedCommand(1, 10)).params.input.messages[0].content).toBe("");
  });

  it("a command is about the brief's 60 bytes, an 8 KB one 8 KB", () => {
    expect(WORKLOADS["command-small"].frameBytes).toBeLessThan(64);
    expect(WORKLOADS["command-8k"].frame(12)).toHaveLength(8192);
    expect(WORKLOADS.events.frame(12)).toHaveLength(WORKLOADS.events.frameBytes);
  });

  it("an answer's id is read; an event or unreadable text has none", () => {
    expect(answeredId(successFrame(42))).toBe(42);
    expect(answeredId(JSON.stringify({ type: "error", id: 5, error: "invalid_argument", message: "m" }))).toBe(5);
    expect(answeredId(eventFrame(42, 100))).toBeUndefined();
    expect(answeredId("not json")).toBeUndefined();
  });
});

describe("splitFrames", () => {
  it("shares the frames as evenly as whole frames allow, none lost", () => {
    expect(splitFrames(10, 4)).toEqual([3, 3, 2, 2]);
    expect(splitFrames(8, 4)).toEqual([2, 2, 2, 2]);
    expect(splitFrames(2, 4)).toEqual([1, 1, 0, 0]);
  });
});

describe("framesFor", () => {
  it("scales --frames by the workload, at least one per socket", () => {
    expect(framesFor("command-small", 5000, 4)).toBe(5000);
    expect(framesFor("events", 5000, 4)).toBe(5000 * FRAME_SCALE.events);
    expect(framesFor("command-8k", 1, 4)).toBe(4);
  });
});
