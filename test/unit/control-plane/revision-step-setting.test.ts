import { describe, expect, test } from "vitest";
import { DEFAULT_STEP_MS } from "../../../emulators/control-plane/deployments/lifecycle.ts";
import { revisionStepMs } from "../../../emulators/control-plane/settings.ts";
import { SettingError } from "../../../src/http/setting-error.ts";

describe("CONTROL_PLANE_REVISION_STEP_MS", () => {
  test.each([
    [undefined, DEFAULT_STEP_MS],
    ["", DEFAULT_STEP_MS],
    ["  ", DEFAULT_STEP_MS],
    ["500", 500],
    ["25", 25],
    [" 250 ", 250],
    ["0", 0],
  ])("%j is %d", (raw, expected) => {
    expect(revisionStepMs({ CONTROL_PLANE_REVISION_STEP_MS: raw })).toBe(expected);
  });

  test.each(["abc", "-1", "1.5", "1e3", "500ms", "0x10", "1234567890"])("%j throws a SettingError naming the variable", (raw) => {
    expect(() => revisionStepMs({ CONTROL_PLANE_REVISION_STEP_MS: raw })).toThrow(SettingError);
    expect(() => revisionStepMs({ CONTROL_PLANE_REVISION_STEP_MS: raw })).toThrow(
      `CONTROL_PLANE_REVISION_STEP_MS must be a whole number of milliseconds from 0 to 999999999, got '${raw}'.`,
    );
  });
});
