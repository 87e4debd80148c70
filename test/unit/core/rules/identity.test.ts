import { describe, expect, it } from "vitest";
import { identityDigest } from "../../../../src/core/rules/identity.ts";
import { hmacHex } from "../../support/hmac.ts";

const SECRET = "a-test-secret-of-at-least-32-bytes!!";

describe("identity digests", () => {
  it("are HMAC-SHA-256 of the kind-tagged identity under the region's secret", () => {
    const key = { kind: "api-key", apiKey: `k-${crypto.randomUUID()}` } as const;
    for (let round = 0; round < 2; round++) {
      expect(identityDigest(key, SECRET)).toBe(hmacHex(SECRET, `api-key:${key.apiKey}`));
      // Switching secrets (two environments in one isolate) never reuses the other's key.
      expect(identityDigest(key, "other")).toBe(hmacHex("other", `api-key:${key.apiKey}`));
    }
    expect(identityDigest({ kind: "user-ip", userId: "u", ip: "203.0.113.7" }, SECRET)).toBe(hmacHex(SECRET, 'user-ip:["u","203.0.113.7"]'));
    expect(identityDigest({ kind: "ip", ip: "203.0.113.7" }, SECRET)).toBe(hmacHex(SECRET, "ip:203.0.113.7"));
  });

  it("hash each identity on its own under one secret (the keyed hash is reused, never its state)", () => {
    const secret = `s-${crypto.randomUUID()}`;
    for (const value of ["a", "b".repeat(200), "ü-ключ-🔑", ...Array.from({ length: 20 }, (_, i) => `k-${i}-${crypto.randomUUID()}`)]) {
      expect(identityDigest({ kind: "api-key", apiKey: value }, secret)).toBe(hmacHex(secret, `api-key:${value}`));
    }
  });
});
