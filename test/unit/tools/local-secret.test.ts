import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localSecret } from "../../../tools/local-secret.ts";
import { MIN_SECRET_BYTES } from "../../../src/core/rules/identity.ts";

const checkout = () => mkdtempSync(join(tmpdir(), "tollgate-secret-"));

describe("the checkout's local identity secret", () => {
  it("is made once, random and long enough, in .dev.vars readable by its owner only", () => {
    const root = checkout();
    const first = localSecret("us", root);
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(MIN_SECRET_BYTES);
    expect(localSecret("us", root)).toBe(first);
    expect(localSecret("eu", root)).toBe(first);
    expect(statSync(join(root, ".dev.vars")).mode & 0o777).toBe(0o600);
    expect(localSecret("us", checkout())).not.toBe(first);
  });

  it("keeps the developer's own settings and value", () => {
    const root = checkout();
    writeFileSync(join(root, ".dev.vars"), "ADMIN_TOKEN=abcdefghijklmnop");
    const made = localSecret("us", root);
    expect(readFileSync(join(root, ".dev.vars"), "utf8")).toMatch(
      /^ADMIN_TOKEN=abcdefghijklmnop\n# Made by tollgate[^\n]*\nIDENTITY_HMAC_SECRET="[\w-]{64}"\n$/,
    );
    expect(made).toHaveLength(64);
    const own = checkout();
    writeFileSync(join(own, ".dev.vars"), 'IDENTITY_HMAC_SECRET="my-own-secret-that-is-long-enough-to-use"\n');
    expect(localSecret("us", own)).toBe("my-own-secret-that-is-long-enough-to-use");
  });

  it("goes where wrangler dev reads it: .dev.vars.<region> when that file exists", () => {
    const root = checkout();
    writeFileSync(join(root, ".dev.vars.eu"), "");
    const eu = localSecret("eu", root);
    expect(readFileSync(join(root, ".dev.vars.eu"), "utf8")).toContain(eu);
    expect(localSecret("us", root)).not.toBe(eu);
  });
});
