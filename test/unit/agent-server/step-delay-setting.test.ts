import { describe, expect, it } from "vitest";
import { stepDelayMs } from "../../../emulators/agent-server/settings.ts";
import { SettingError } from "../../../src/http/setting-error.ts";

describe("AGENT_SERVER_STEP_DELAY_MS", () => {
  it("defaults to 0 and takes whole milliseconds up to a minute", () => {
    expect(stepDelayMs({})).toBe(0);
    expect(stepDelayMs({ AGENT_SERVER_STEP_DELAY_MS: "" })).toBe(0);
    expect(stepDelayMs({ AGENT_SERVER_STEP_DELAY_MS: " 250 " })).toBe(250);
    for (const bad of ["-1", "1.5", "fast", "60001"]) {
      expect(() => stepDelayMs({ AGENT_SERVER_STEP_DELAY_MS: bad })).toThrow(SettingError);
      expect(() => stepDelayMs({ AGENT_SERVER_STEP_DELAY_MS: bad })).toThrow(
        `AGENT_SERVER_STEP_DELAY_MS must be a whole number of milliseconds from 0 to 60000, got '${bad}'.`,
      );
    }
  });
});
