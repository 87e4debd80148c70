// The --before checkout (bench/gateway/before-checkout.ts) on this repository itself: a real git
// worktree, made and removed.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { checkoutAt } from "../../../../bench/gateway/before-checkout.ts";
import { ROOT } from "../../../../bench/gateway/targets.ts";

const scratch: string[] = [];
afterEach(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const git = (...args: string[]) => execFileSync("git", args, { cwd: ROOT, encoding: "utf8" }).trim();

describe("checkoutAt", () => {
  it("checks the revision out beside this one, with this checkout's node_modules, and removes it again", async () => {
    const parent = mkdtempSync(join(tmpdir(), "tollgate-before-test-"));
    scratch.push(parent);
    const dir = join(parent, "before");
    const checkout = await checkoutAt("HEAD", dir);
    try {
      expect(checkout.commit).toBe(git("rev-parse", "HEAD"));
      expect(git("-C", dir, "rev-parse", "HEAD")).toBe(checkout.commit);
      expect(existsSync(join(dir, "wrangler.toml"))).toBe(true);
      expect(realpathSync(join(dir, "node_modules"))).toBe(realpathSync(join(ROOT, "node_modules")));
      expect(git("worktree", "list", "--porcelain")).toContain(`worktree ${realpathSync(dir)}`);
    } finally {
      await checkout.remove();
    }
    expect(existsSync(dir)).toBe(false);
    expect(git("worktree", "list", "--porcelain")).not.toContain(dir);
  });

  it("refuses a revision that names no commit, leaving no worktree", async () => {
    const parent = mkdtempSync(join(tmpdir(), "tollgate-before-test-"));
    scratch.push(parent);
    const before = git("worktree", "list", "--porcelain");
    await expect(checkoutAt("no-such-revision-of-tollgate", join(parent, "before"))).rejects.toThrow(
      /^--before: "no-such-revision-of-tollgate" names no commit/,
    );
    expect(git("worktree", "list", "--porcelain")).toBe(before);
  });
});
