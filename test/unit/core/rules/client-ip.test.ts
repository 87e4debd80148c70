import { describe, it, expect } from "vitest";
import fc from "fast-check";
import { clientIpKey, UNKNOWN_CLIENT } from "../../../../src/core/rules/client-ip.ts";

describe("clientIpKey examples", () => {
  it("keys IPv4 by its canonical dotted quad", () => {
    expect(clientIpKey("203.0.113.7")).toBe("203.0.113.7");
    expect(clientIpKey("  203.0.113.7\t")).toBe("203.0.113.7");
    expect(clientIpKey("0.0.0.0")).toBe("0.0.0.0");
    expect(clientIpKey("255.255.255.255")).toBe("255.255.255.255");
    // Leading zeros are decimal, not octal.
    expect(clientIpKey("010.001.000.7")).toBe("10.1.0.7");
  });

  it("gives every address in one /64 the same key, whatever the spelling", () => {
    const key = "2001:db8:1:2::/64";
    for (const spelling of [
      "2001:db8:1:2::1",
      "2001:0DB8:0001:0002:ffff::9",
      "[2001:db8:1:2::5]",
      "2001:db8:1:2:0:0:0:1%eth0",
      "[2001:db8:1:2::7%25]",
      " 2001:DB8:1:2:AAAA:BBBB:CCCC:DDDD ",
      "2001:db8:1:2:ffff:ffff:255.255.255.255",
      "2001:db8:1:2::",
    ]) {
      expect(clientIpKey(spelling), spelling).toBe(key);
    }
  });

  it("gives different /64s different keys", () => {
    expect(clientIpKey("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(clientIpKey("2001:db8:1:2::1")).not.toBe(clientIpKey("2001:db8:1:3::1"));
    expect(clientIpKey("2001:db8::1")).toBe("2001:db8::/64");
    expect(clientIpKey("2001:db8:0:1::1")).toBe("2001:db8:0:1::/64");
    expect(clientIpKey("2001:0:0:1::1")).toBe("2001:0:0:1::/64");
    expect(clientIpKey("::1")).toBe("::/64");
    expect(clientIpKey("::")).toBe("::/64");
    expect(clientIpKey("64:ff9b::1.2.3.4")).toBe("64:ff9b::/64");
    expect(clientIpKey("fe80::1%eth0")).toBe("fe80::/64");
  });

  it("keys IPv4-mapped IPv6 as the plain IPv4 address", () => {
    expect(clientIpKey("::ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientIpKey("::FFFF:cb00:7107")).toBe("203.0.113.7");
    expect(clientIpKey("[::ffff:203.0.113.7]")).toBe("203.0.113.7");
    expect(clientIpKey("0:0:0:0:0:ffff:203.0.113.7")).toBe("203.0.113.7");
    expect(clientIpKey("0000:0000:0000:0000:0000:FFFF:CB00:7107")).toBe("203.0.113.7");
    // Not mapped: other ::/64 addresses share the ::/64 key instead.
    expect(clientIpKey("::fffe:203.0.113.7")).toBe("::/64");
    expect(clientIpKey("::1:ffff:203.0.113.7")).toBe("::/64");
  });

  it("maps absent, empty and garbage values to the shared unknown key", () => {
    expect(UNKNOWN_CLIENT).toBe("unknown");
    for (const bad of [
      null,
      undefined,
      "",
      "   ",
      "not-an-ip",
      "1.2.3",
      "1.2.3.4.5",
      "256.1.1.1",
      "1.2.3.-4",
      "+1.2.3.4",
      "1.2.3.4x",
      "1..2.3",
      "1.2.3.0004",
      "0x7f.0.0.1",
      "2130706433",
      "1:2:3:4:5:6:7:8:9",
      "1:2:3:4:5:6:7",
      "1:2:3:4:5:6:7:8::",
      "::1::2",
      ":::",
      ":1::2",
      "1::2:",
      "12345::1",
      "g::1",
      "1.2.3.4::",
      "::1.2.3.4:1",
      "::ffff:1.2.3",
      "::ffff:256.1.1.1",
      "1:2:3:4:5:6:7:1.2.3.4",
      "[::1",
      "::1]",
      "[1.2.3.4]",
      "[::1]:443",
      "fe80::1%",
      "unknown",
    ]) {
      expect(clientIpKey(bad), String(bad)).toBe(UNKNOWN_CLIENT);
    }
    // Trimming applies to the whole value.
    expect(clientIpKey("1.2.3.4 ")).toBe("1.2.3.4");
  });
});

const group = fc.integer({ min: 0, max: 0xffff });
const address = fc.array(group, { minLength: 8, maxLength: 8 });

/** Fully expanded: 8 groups of 4 hex digits, random case. */
function expanded(groups: number[], upper: boolean): string {
  const s = groups.map((g) => g.toString(16).padStart(4, "0")).join(":");
  return upper ? s.toUpperCase() : s;
}

/**
 * Compressed: drop leading zeros and replace the zero run starting at
 * `runStart` (if any) with `::`; any run of one or more zero groups may be
 * compressed, not just the RFC 5952 choice. Optionally writes the last 32
 * bits as a dotted quad, and wraps the result in brackets or adds a zone.
 */
function compressed(groups: number[], runPick: number, ipv4Tail: boolean, wrap: "none" | "brackets" | "zone"): string {
  const runs: [number, number][] = [];
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    runs.push([i, j]);
    i = j;
  }
  const text = (gs: number[], allowTail: boolean): string[] => {
    const parts = gs.map((g) => g.toString(16));
    if (allowTail && ipv4Tail && gs.length >= 2) {
      const hi = gs[gs.length - 2]!;
      const lo = gs[gs.length - 1]!;
      parts.splice(-2, 2, `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`);
    }
    return parts;
  };
  let s: string;
  const run = runs.length > 0 ? runs[runPick % runs.length] : undefined;
  if (run === undefined) {
    s = text(groups, true).join(":");
  } else {
    const [start, end] = run;
    const left = groups.slice(0, start);
    const right = groups.slice(end);
    s = text(left, false).join(":") + "::" + text(right, true).join(":");
  }
  if (wrap === "brackets") return `[${s}]`;
  if (wrap === "zone") return `${s}%eth0`;
  return s;
}

const isMappedV4 = (g: number[]) => g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff;
const prefixIsZero = (g: number[]) => g.slice(0, 4).every((x) => x === 0);

/** Addresses with many zero groups, so `::` compression is exercised often. */
const zeroHeavyAddress = fc.array(fc.oneof(fc.constant(0), fc.constant(0), group), {
  minLength: 8,
  maxLength: 8,
});

describe("clientIpKey properties", () => {
  it("gives expanded and compressed spellings of an address the same key", () => {
    fc.assert(
      fc.property(
        fc.oneof(address, zeroHeavyAddress),
        fc.boolean(),
        fc.nat(),
        fc.boolean(),
        fc.constantFrom("none", "brackets", "zone"),
        (groups, upper, runPick, ipv4Tail, wrap) => {
          const a = clientIpKey(expanded(groups, upper));
          const b = clientIpKey(compressed(groups, runPick, ipv4Tail, wrap));
          expect(a).not.toBe(UNKNOWN_CLIENT);
          expect(b).toBe(a);
          if (isMappedV4(groups)) {
            expect(a).toBe(`${groups[6]! >> 8}.${groups[6]! & 0xff}.${groups[7]! >> 8}.${groups[7]! & 0xff}`);
          } else {
            expect(a).toMatch(/^[0-9a-f:]+\/64$/);
          }
        },
      ),
      { numRuns: 2000 },
    );
  });

  it("gives addresses differing in the first 64 bits different keys", () => {
    fc.assert(
      fc.property(fc.oneof(address, zeroHeavyAddress), fc.oneof(address, zeroHeavyAddress), (a, b) => {
        fc.pre(a.slice(0, 4).join() !== b.slice(0, 4).join());
        expect(clientIpKey(expanded(a, false))).not.toBe(clientIpKey(expanded(b, false)));
      }),
      { numRuns: 2000 },
    );
  });

  it("gives addresses differing only in the last 64 bits the same key", () => {
    fc.assert(
      fc.property(fc.oneof(address, zeroHeavyAddress), fc.array(group, { minLength: 4, maxLength: 4 }), fc.nat(), (a, low, runPick) => {
        // In ::/64 the IPv4-mapped range deliberately gets per-IPv4 keys.
        fc.pre(!prefixIsZero(a));
        const b = [...a.slice(0, 4), ...low];
        expect(clientIpKey(compressed(b, runPick, false, "none"))).toBe(clientIpKey(expanded(a, true)));
      }),
      { numRuns: 2000 },
    );
  });

  it("never gives an IPv4 client the key of an IPv6 /64", () => {
    fc.assert(
      fc.property(address, fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), (v6, v4) => {
        fc.pre(!isMappedV4(v6));
        const k4 = clientIpKey(v4.join("."));
        expect(k4).toBe(v4.join("."));
        expect(clientIpKey(expanded(v6, false))).not.toBe(k4);
      }),
    );
  });
});
