// The reference API descriptions the emulators are held to are vendored in test/fixtures/reference
// so a clone tests on its own; beside ../shared they must be the same documents.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { inRepo } from "../support/paths.ts";

describe("vendored reference documents", () => {
  // The agent server's 2026 document sits beside the emulator, which serves it as /openapi.json.
  for (const [folder, name] of [
    ["test/fixtures/reference", "agent-server.openapi.json"],
    ["test/fixtures/reference", "control-plane.openapi.json"],
    ["emulators/agent-server/system", "agent-server.2026.openapi.json"],
  ] as const) {
    const vendored = inRepo(folder, name);
    const original = inRepo("../shared/reference", name);
    it(`${name} is vendored and parses`, () => {
      expect(JSON.parse(readFileSync(vendored, "utf8"))).toHaveProperty("paths");
    });
    it.skipIf(!existsSync(original))(`${name} is identical to ../shared/reference/${name}`, () => {
      expect(readFileSync(vendored, "utf8")).toBe(readFileSync(original, "utf8"));
    });
  }
});
