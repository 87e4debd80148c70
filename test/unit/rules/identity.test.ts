import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { cachedDigests, DIGEST_CACHE_SIZE, identityDigest } from "../../../src/rules/identity.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("identity digests", () => {
  it("are SHA-256 of the kind-tagged identity, or HMAC-SHA-256 with a secret, cached or not", () => {
    const key = { kind: "api-key", apiKey: `k-${crypto.randomUUID()}` } as const;
    for (let round = 0; round < 2; round++) {
      // The second round is answered from the isolate's cache: the same digests.
      expect(identityDigest(key)).toBe(sha256(`api-key:${key.apiKey}`));
      expect(identityDigest(key, "s3cret")).toBe(createHmac("sha256", "s3cret").update(`api-key:${key.apiKey}`).digest("hex"));
      expect(identityDigest(key, "other")).toBe(createHmac("sha256", "other").update(`api-key:${key.apiKey}`).digest("hex"));
    }
    const userIp = { kind: "user-ip", userId: "u", ip: "203.0.113.7" } as const;
    expect(identityDigest(userIp)).toBe(sha256('user-ip:["u","203.0.113.7"]'));
    expect(identityDigest({ kind: "ip", ip: "203.0.113.7" })).toBe(sha256("ip:203.0.113.7"));
  });

  it("hash each identity on its own under one secret (the keyed hash is reused, never its state)", () => {
    const secret = `s-${crypto.randomUUID()}`;
    // Many identities under one secret, long and short, none cached yet: each is its own HMAC.
    for (const value of ["a", "b".repeat(200), "ü-ключ-🔑", ...Array.from({ length: 20 }, (_, i) => `k-${i}-${crypto.randomUUID()}`)]) {
      expect(identityDigest({ kind: "api-key", apiKey: value }, secret)).toBe(createHmac("sha256", secret).update(`api-key:${value}`).digest("hex"));
    }
  });

  it("keep the cache bounded", () => {
    for (let i = 0; i < DIGEST_CACHE_SIZE + 50; i++) identityDigest({ kind: "ip", ip: `10.${i >> 16}.${(i >> 8) & 255}.${i & 255}` });
    expect(cachedDigests()).toBe(DIGEST_CACHE_SIZE);
  });
});
