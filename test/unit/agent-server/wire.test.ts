import { describe, expect, it } from "vitest";
import { stepDelayMs } from "../../../src/emulators/agent-server/config.ts";
import { AssistantIdParam, resolveAssistantRef, ThreadIdParam } from "../../../src/emulators/agent-server/ids.ts";
import { encodeEvent, parseEvents } from "../../../src/emulators/agent-server/sse.ts";

const AGENT = "7c9fac6d-1b9a-54e5-89e7-6c8b5e3ae414";

describe("server-sent events", () => {
  it("writes event: <type>\\ndata: <json>\\n\\n", () => {
    const text = new TextDecoder().decode(encodeEvent({ event: "updates", data: { agent: { messages: ["a\nb"] } } }));
    expect(text).toBe('event: updates\ndata: {"agent":{"messages":["a\\nb"]}}\n\n');
  });

  it("reads complete events back and keeps an incomplete one for later", () => {
    const wire = new TextDecoder().decode(encodeEvent({ event: "metadata", data: { run_id: "r" } })) + "event: values\ndata: {";
    expect(parseEvents(wire)).toEqual({ events: [{ event: "metadata", data: { run_id: "r" } }], rest: "event: values\ndata: {" });
  });
});

describe("ids", () => {
  it("takes a graph id for its default assistant and lower-cases UUIDs in paths", () => {
    expect(AssistantIdParam.parse({ assistant_id: "agent" })).toEqual({ assistant_id: AGENT });
    expect(AssistantIdParam.parse({ assistant_id: AGENT.toUpperCase() })).toEqual({ assistant_id: AGENT });
    expect(AssistantIdParam.safeParse({ assistant_id: "agents" }).success).toBe(false);
    expect(ThreadIdParam.safeParse({ thread_id: "agent" }).success).toBe(false);
  });

  it("resolves a run's assistant_id: UUID, graph id, or nothing (an unknown assistant)", () => {
    expect(resolveAssistantRef("agent")).toBe(AGENT);
    expect(resolveAssistantRef(AGENT.toUpperCase())).toBe(AGENT);
    expect(resolveAssistantRef("unknown-graph")).toBeUndefined();
  });
});

describe("AGENT_SERVER_STEP_DELAY_MS", () => {
  it("defaults to 0 and takes whole milliseconds up to a minute", () => {
    expect(stepDelayMs({})).toBe(0);
    expect(stepDelayMs({ AGENT_SERVER_STEP_DELAY_MS: "" })).toBe(0);
    expect(stepDelayMs({ AGENT_SERVER_STEP_DELAY_MS: " 250 " })).toBe(250);
    for (const bad of ["-1", "1.5", "fast", "60001"]) {
      expect(() => stepDelayMs({ AGENT_SERVER_STEP_DELAY_MS: bad })).toThrow(`got '${bad}'`);
    }
  });
});
