import { describe, expect, it } from "vitest";
import { parsePrefix, prefixOfClient } from "../../../../src/core/overrides/ipv6-prefix.ts";
import { clientIpKey } from "../../../../src/core/rules/client-ip.ts";

describe("IPv6 prefixes", () => {
  it.each([
    ["2001:db8:ab00::/40", "2001:db8:ab00::/40", 40],
    ["2001:0DB8:ABCD:1234::1/40", "2001:db8:ab00::/40", 40],
    ["[2001:db8::1]/32", "2001:db8::/32", 32],
    ["2001:db8:1:2:3:4:5:6/64", "2001:db8:1:2::/64", 64],
    ["2001:db8::/1", "::/1", 1],
    ["ffff::/1", "8000::/1", 1],
    ["2001:db8:ffff::/33", "2001:db8:8000::/33", 33],
  ])("reads %s as %s", (text, prefix, length) => {
    expect(parsePrefix(text)).toEqual({ ok: true, prefix, length });
  });

  it.each([["2001:db8::/0"], ["2001:db8::/65"], ["2001:db8::/4x"], ["2001:db8::"], ["192.0.2.0/24"], ["::ffff:192.0.2.1/64"], ["nonsense/40"]])(
    "refuses %s",
    (text) => {
      expect(parsePrefix(text).ok).toBe(false);
    },
  );

  it("cuts a client's /64 key to any length, the /64 itself being the client key", () => {
    const key = clientIpKey("2001:db8:abcd:1234:5678::9");
    expect(prefixOfClient(key, 64)).toBe(key);
    expect(prefixOfClient(key, 48)).toBe("2001:db8:abcd::/48");
    expect(prefixOfClient(key, 44)).toBe("2001:db8:abc0::/44");
    expect(prefixOfClient("198.51.100.1", 48)).toBeUndefined();
  });
});
