import { describe, expect, it } from "vitest";
import { defaultAssistantId } from "../../../emulators/agent-server/graphs/registry.ts";

describe("default assistant ids", () => {
  it("are what both real servers derive: uuid5(NAMESPACE_GRAPH = 6ba7b821-9dad-11d1-80b4-00c04fd430c8, graph_id)", () => {
    expect(defaultAssistantId("agent")).toBe("fe096781-5601-53d2-b2f6-0d3403f7e9ca");
    expect(defaultAssistantId("pipeline")).toBe("024bfc19-7d06-5d5c-92b5-cec6be8620ae");
  });
});
