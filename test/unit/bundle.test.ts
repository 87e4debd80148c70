// The deployed bundle, as `wrangler deploy --dry-run` builds it (the same build CI checks).
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

describe("the Worker bundle", () => {
  it("has no esbuild __name wrappers (keep_names = false): they cost every call on the hot path", async () => {
    const outdir = await mkdtemp(join(tmpdir(), "tollgate-bundle-"));
    try {
      await promisify(execFile)("npx", ["wrangler", "deploy", "--dry-run", "--env", "us", "--outdir", outdir], {
        env: { ...process.env, WRANGLER_SEND_METRICS: "false" },
      });
      const bundle = await readFile(join(outdir, "index.js"), "utf8");
      expect(bundle).toContain("RateLimiter = class extends DurableObject"); // really the gateway's bundle
      expect(bundle).not.toMatch(/\b__name\(/);
    } finally {
      await rm(outdir, { recursive: true, force: true });
    }
  }, 120_000);
});
