import { describe, expect, it } from "vitest";
import { AssistantIdParam, resolveAssistantRef, ThreadIdParam } from "../../../emulators/agent-server/ids.ts";

const AGENT = "fe096781-5601-53d2-b2f6-0d3403f7e9ca";

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
    // Every spelling pydantic's UUID takes names the same assistant.
    expect(resolveAssistantRef(`{${AGENT}}`)).toBe(AGENT);
    expect(resolveAssistantRef(AGENT.replaceAll("-", ""))).toBe(AGENT);
  });
});
