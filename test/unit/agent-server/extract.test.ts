import { describe, expect, it } from "vitest";
import { extractValue, parseExtractPath } from "../../../emulators/agent-server/threads/extract.ts";

const thread = {
  thread_id: "t",
  values: { messages: [{ content: "first" }, { content: "last" }] },
  metadata: { user: { name: "ada" }, tags: ["a", "b"] },
  config: {},
  interrupts: {},
};
const extract = (path: string) => extractValue(thread, parseExtractPath(path)!);

describe("extract paths (POST /threads/search `extract`)", () => {
  it("walk keys and list items, negative from the end, from one of the thread's JSON columns", () => {
    expect(extract("values.messages[-1].content")).toBe("last");
    expect(extract("values.messages[0]")).toEqual({ content: "first" });
    expect(extract("metadata.user.name")).toBe("ada");
    expect(extract("metadata.tags[1]")).toBe("b");
    expect(extract("values")).toEqual(thread.values);
  });

  it("lead to null where there is nothing", () => {
    expect(extract("values.messages[5]")).toBeNull();
    expect(extract("metadata.user.age")).toBeNull();
    expect(extract("metadata.user.name[0]")).toBeNull();
    expect(extract("config.configurable.x")).toBeNull();
  });

  it("are refused outside the JSON columns or when malformed", () => {
    for (const path of ["thread_id", "status", "", "values..messages", "values.messages[x]", "values.[0]", "metadata.a]"])
      expect(parseExtractPath(path), path).toBeUndefined();
  });
});
