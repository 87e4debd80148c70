import { describe, expect, it } from "vitest";
import { IdentityDigests } from "../../../../src/core/rules/identity-digests.ts";
import { identityDigest } from "../../../../src/core/rules/identity.ts";
import { hmacHex } from "../../support/hmac.ts";

const SECRET = "a-test-secret-of-at-least-32-bytes!!";
const key = (apiKey: string) => ({ kind: "api-key", apiKey }) as const;

describe("an isolate's identity digests", () => {
  it("give the digest identityDigest gives, for every kind, the first time and again", () => {
    const digests = new IdentityDigests(SECRET);
    const identities = [key("k-1"), { kind: "user-ip", userId: "u", ip: "203.0.113.7" } as const, { kind: "ip", ip: "203.0.113.7" } as const];
    for (let pass = 0; pass < 2; pass++) {
      for (const identity of identities) expect(digests.digest(identity)).toBe(identityDigest(identity, SECRET));
    }
    expect(digests.digest(key("k-1"))).toBe(hmacHex(SECRET, "api-key:k-1"));
    // A user at an IP and the IP alone are different identities, whatever their text.
    expect(digests.digest({ kind: "ip", ip: "u" })).not.toBe(digests.digest({ kind: "api-key", apiKey: "u" }));
  });

  it("are their own secret's: another secret's cache never answers with these digests", () => {
    const one = new IdentityDigests(SECRET);
    const other = new IdentityDigests(`${SECRET}-rotated`);
    expect(one.digest(key("k"))).toBe(hmacHex(SECRET, "api-key:k"));
    expect(other.digest(key("k"))).toBe(hmacHex(`${SECRET}-rotated`, "api-key:k"));
    // Interleaved, each keeps its own (the module's keyed HMAC switches secrets under them).
    expect(one.digest(key("k"))).toBe(hmacHex(SECRET, "api-key:k"));
    expect(one.digest(key("k2"))).toBe(hmacHex(SECRET, "api-key:k2"));
    expect(other.digest(key("k2"))).toBe(hmacHex(`${SECRET}-rotated`, "api-key:k2"));
  });

  it("stay bounded, dropping the least recently used first", () => {
    const digests = new IdentityDigests(SECRET, 3);
    for (const k of ["a", "b", "c"]) digests.digest(key(k));
    // "a" used again: "b" is now the least recent and goes when "d" comes.
    digests.digest(key("a"));
    digests.digest(key("d"));
    expect(digests.size).toBe(3);
    for (let i = 0; i < 100; i++) digests.digest(key(`many-${i}`));
    expect(digests.size).toBe(3);
    // Dropped or kept, every answer is still the digest.
    for (const k of ["a", "b", "c", "d", "many-99"]) expect(digests.digest(key(k))).toBe(hmacHex(SECRET, `api-key:${k}`));
  });

  it("keep raw identities out of anything they hand out: no enumerable state, JSON or string names them", () => {
    const digests = new IdentityDigests(SECRET);
    const raw = `raw-key-${crypto.randomUUID()}`;
    digests.digest(key(raw));
    expect(Object.keys(digests)).toEqual([]);
    expect(JSON.stringify(digests)).not.toContain(raw);
    expect(String(digests)).not.toContain(raw);
  });

  it("refuse a bound that is not a positive integer", () => {
    expect(() => new IdentityDigests(SECRET, 0)).toThrow(RangeError);
    expect(() => new IdentityDigests(SECRET, 1.5)).toThrow(RangeError);
  });
});
