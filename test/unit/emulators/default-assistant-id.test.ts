import { describe, expect, it } from "vitest";
import { defaultAssistantId } from "../../../emulators/agent-server/graphs/registry.ts";

describe("default assistant ids", () => {
  it("are what the real server derives: Python's uuid.uuid5(uuid.NAMESPACE_URL, graph_id)", () => {
    expect(defaultAssistantId("agent")).toBe("7c9fac6d-1b9a-54e5-89e7-6c8b5e3ae414");
    expect(defaultAssistantId("pipeline")).toBe("66dccdf8-d52b-5123-8595-e7c707dd9462");
  });
});
