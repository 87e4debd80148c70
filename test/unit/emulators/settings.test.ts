import { describe, expect, it } from "vitest";
import { SettingError } from "../../../src/http/setting-error.ts";
import { millisecondsSetting } from "../../../emulators/shared/settings.ts";

const read = (raw: string | undefined) => millisecondsSetting("SOME_DELAY_MS", raw, { fallback: 7, max: 1000 });

describe("millisecondsSetting", () => {
  it("takes whole milliseconds from 0 to the maximum; absent or blank is the fallback", () => {
    expect([undefined, "", "  ", "0", " 250 ", "1000"].map(read)).toEqual([7, 7, 7, 0, 250, 1000]);
  });

  it("refuses anything else with a SettingError whose message names the setting and the value", () => {
    for (const bad of ["-1", "1.5", "1e3", "0x10", "10ms", "1001", "99999999999999999999"]) {
      let error: unknown;
      try {
        read(bad);
      } catch (caught) {
        error = caught;
      }
      expect(error, bad).toBeInstanceOf(SettingError);
      expect(error).toMatchObject({ setting: "SOME_DELAY_MS", message: `SOME_DELAY_MS must be a whole number of milliseconds from 0 to 1000, got '${bad}'.` });
    }
  });
});
