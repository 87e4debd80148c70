// The reference API descriptions the emulators are held to are vendored in test/fixtures/reference
// so a clone tests on its own; beside ../shared they must be the same documents.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inRepo } from "../support/paths.ts";

describe("vendored reference documents", () => {
  for (const name of ["agent-server.openapi.json", "control-plane.openapi.json"]) {
    const vendored = inRepo("test/fixtures/reference", name);
    const original = inRepo("../shared/reference", name);
    it(`${name} is vendored and parses`, () => {
      expect(JSON.parse(readFileSync(vendored, "utf8"))).toHaveProperty("paths");
    });
    it.skipIf(!existsSync(original))(`${name} is identical to ../shared/reference/${name}`, () => {
      expect(readFileSync(vendored, "utf8")).toBe(readFileSync(original, "utf8"));
    });
  }
});
