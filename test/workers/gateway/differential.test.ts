// Differential property (issue 8): a request spelled any way is either refused, or counted on the
// same rule and counter as its canonical spelling and forwarded as sent (issue 43), which the
// upstream model (support/upstream-model.ts, independent of src/core/rules) reads as the request
// that was meant. Refused are exactly the spellings the model would route as another path.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import table from "../../../rules/hosted-api.json" with { type: "json" };
import { gatewayWith, recordingLimiter, recordingUpstreams } from "../support/custom-gateway.ts";
import { MOUNTS, routesAsAnotherPath, upstreamReads, type UpstreamAction } from "../support/upstream-model.ts";

// ---- what a request means: method, mount, route, identity ---------------------------------------

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const tableSegments = [
  ...new Set(table.rules.flatMap((r) => r.match.flatMap((m) => ("path" in m && m.path ? m.path.pattern.split("/").slice(1) : [])))),
].filter((s) => s !== "{uuid}");
// Segments that are not dot segments; some need encoding on the wire ("a b", "é", "%", "{").
const plainSegment = fc.oneof(
  fc.constantFrom(...tableSegments),
  fc.stringMatching(/^[a-z0-9~-]{1,6}$/),
  fc.constantFrom("a b", "é", "50%", "{x}", "a+b", "k:v", "x@y", "_q"),
);
const patterns = table.rules.flatMap((r) => r.match.flatMap((m) => ("path" in m && m.path ? [m.path.pattern] : [])));

interface Meaning {
  readonly method: (typeof METHODS)[number];
  readonly mount: string;
  /** Decoded route segments below the mount; `uuid` set for a run lookup route. */
  readonly route: readonly string[];
  readonly uuid?: string;
  readonly apiKey?: string;
  readonly userId?: string;
}

const meaning: fc.Arbitrary<Meaning> = fc
  .record({
    method: fc.constantFrom(...METHODS),
    mount: fc.constantFrom("", ...MOUNTS),
    shape: fc.oneof(
      fc.uuid().map((uuid) => ({ route: ["runs", uuid], uuid })),
      fc.tuple(fc.constantFrom(...patterns), fc.array(plainSegment, { maxLength: 2 })).map(([pattern, after]) => ({
        route: [
          ...pattern
            .split("/")
            .slice(1)
            .map((s) => (s === "{uuid}" ? "x" : s)),
          ...after,
        ],
      })),
      fc.array(plainSegment, { maxLength: 4 }).map((route) => ({ route })),
    ),
    apiKey: fc.option(fc.stringMatching(/^k-[a-z0-9]{1,8}$/), { nil: undefined }),
    userId: fc.option(fc.stringMatching(/^u-[a-z0-9]{1,8}$/), { nil: undefined }),
  })
  .map(({ shape, ...rest }) => ({ ...rest, ...shape }))
  // A route that itself starts with a mount would mean that mount: not the meaning drawn.
  .filter((m) => !MOUNTS.some((mount) => `/${m.route.join("/")}`.startsWith(`${mount}/`)));

// ---- how it may be spelled ----------------------------------------------------------------------

/** Characters that may stand literally in a path segment (RFC 3986 pchar, minus "%"). */
const PCHAR = /^[A-Za-z0-9\-._~!$&'()*+,;=:@]$/;

const percentEncode = (ch: string, lower: boolean) => {
  const escaped = [...new TextEncoder().encode(ch)].map((b) => `%${b.toString(16).padStart(2, "0")}`).join("");
  return lower ? escaped : escaped.toUpperCase();
};

interface Spelling {
  readonly uuidForm: "hyphenated" | "upper" | "simple" | "braced" | "urn";
  /** Per character: spell it percent-encoded (where it may stand literally). */
  readonly encode: readonly boolean[];
  readonly lowerHex: boolean;
  /** Per separator: "/" as "%2F", and a dot segment or a "seg/.." detour before the segment. */
  readonly slashEncoded: readonly boolean[];
  readonly detour: readonly ("none" | "dot" | "up" | "double-slash")[];
  readonly trailingSlash: boolean;
  readonly head: boolean;
  readonly upperHeaderNames: boolean;
  /** Headers an upstream must not read as identity or address; they must change nothing. */
  readonly noise: boolean;
  /** One trick the gateway must refuse, if any. */
  readonly refusal: "none" | "repeat-key" | "repeat-user" | "comma-key" | "override";
}

const spelling: fc.Arbitrary<Spelling> = fc.record({
  uuidForm: fc.constantFrom("hyphenated", "upper", "simple", "braced", "urn"),
  encode: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
  lowerHex: fc.boolean(),
  slashEncoded: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  detour: fc.array(fc.constantFrom("none", "none", "dot", "up", "double-slash"), { minLength: 8, maxLength: 8 }),
  trailingSlash: fc.boolean(),
  head: fc.boolean(),
  upperHeaderNames: fc.boolean(),
  noise: fc.boolean(),
  refusal: fc.constantFrom("none", "none", "none", "repeat-key", "repeat-user", "comma-key", "override"),
});

function spellUuid(uuid: string, form: Spelling["uuidForm"]): string {
  switch (form) {
    case "hyphenated":
      return uuid;
    case "upper":
      return uuid.toUpperCase();
    case "simple":
      return uuid.replaceAll("-", "");
    case "braced":
      return `{${uuid}}`;
    case "urn":
      return `urn:uuid:${uuid}`;
  }
}

interface WireRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Headers;
  readonly refused: boolean;
}

/** The plainest wire form of a meaning: each segment encoded only where it must be. */
function canonicalWire(m: Meaning, mount = m.mount): WireRequest {
  const segments = [...mount.split("/").slice(1), ...m.route];
  const path = "/" + segments.map((s) => [...s].map((ch) => (PCHAR.test(ch) ? ch : percentEncode(ch, false))).join("")).join("/");
  const headers = new Headers({ "cf-connecting-ip": "203.0.113.9" });
  if (m.apiKey) headers.set("x-api-key", m.apiKey);
  if (m.userId) headers.set("x-user-id", m.userId);
  return { method: m.method, path, headers, refused: false };
}

/** The same meaning, spelled as `s` says. */
function spelledWire(m: Meaning, s: Spelling): WireRequest {
  let k = 0;
  const segments = [...m.mount.split("/").slice(1), ...m.route.map((seg, i) => (m.uuid && i === 1 ? spellUuid(m.uuid, s.uuidForm) : seg))];
  let path = "";
  segments.forEach((segment, i) => {
    const detour = s.detour[i % s.detour.length];
    if (detour === "dot") path += "/.";
    if (detour === "up") path += "/detour/..";
    if (detour === "double-slash") path += "/";
    path += i > 0 && s.slashEncoded[i % s.slashEncoded.length] ? (s.lowerHex ? "%2f" : "%2F") : "/";
    path += [...segment].map((ch) => (!PCHAR.test(ch) || s.encode[k++ % s.encode.length] ? percentEncode(ch, s.lowerHex) : ch)).join("");
  });
  if (s.trailingSlash || path === "") path += "/";

  const name = (n: string) => (s.upperHeaderNames ? n.toUpperCase() : n);
  const headers = new Headers({ [name("cf-connecting-ip")]: "203.0.113.9" });
  if (m.apiKey) headers.append(name("x-api-key"), m.apiKey);
  if (m.userId) headers.append(name("x-user-id"), m.userId);
  if (s.noise) {
    headers.set("x_api_key", "someone-else");
    headers.set("x_user_id", "someone-else");
    headers.set("x-real-ip", "10.1.2.3");
    headers.set("forwarded", "for=10.1.2.4");
    headers.set("x-forwarded-for", "10.1.2.5");
  }
  const repeat = (header: string, first: string | undefined) => {
    if (!first) headers.append(header, "first");
    headers.append(header.toUpperCase(), "another");
  };
  if (s.refusal === "repeat-key") repeat("x-api-key", m.apiKey);
  if (s.refusal === "repeat-user") repeat("x-user-id", m.userId);
  if (s.refusal === "comma-key") headers.set("x-api-key", `${m.apiKey ?? "k"},x`);
  if (s.refusal === "override") headers.set("x-http-method-override", "POST");
  const refused = s.refusal !== "none";
  return { method: s.head && m.method === "GET" ? "HEAD" : m.method, path, headers, refused };
}

// ---- the property -------------------------------------------------------------------------------

/**
 * One gateway that records the counter each request meets and what it forwards, made once (an
 * isolate of its own, its settings checked once): each request's records are cleared before it.
 */
const limiter = recordingLimiter("allow");
const upstreams = recordingUpstreams();
// The upstreams told the client's address pinned: the environments set it differently, and this
// file runs in one project only (test/setup/region-blind.ts).
const send = gatewayWith({ COUNTERS: limiter.namespace, ...upstreams.bindings, FORWARD_CLIENT_ADDRESS: "hosted-api, control-plane" });

/** Sends one request through the recording gateway: its answer, the counters it met, what it forwarded. */
async function through(wire: WireRequest) {
  limiter.calls.names.length = 0;
  limiter.calls.keys.length = 0;
  upstreams.seen.length = 0;
  const res = await send(wire.path, { method: wire.method, headers: wire.headers });
  const forwarded = upstreams.seen[0]?.request;
  return {
    res,
    // The object and the key within it: together they name the counter.
    counters: limiter.calls.names.map((object, i) => `${object}/${limiter.calls.keys[i]}`),
    forwarded,
    action: forwarded ? upstreamReads(forwarded.method, new URL(forwarded.url).pathname, forwarded.headers) : undefined,
  };
}

const intent = (m: Meaning): Omit<UpstreamAction, "mount"> => ({
  method: m.method,
  route: m.route,
  apiKey: m.apiKey ?? null,
  userId: m.userId ?? null,
});

describe("every spelling is refused, or counted as its canonical form and forwarded as sent", () => {
  it("holds for random requests and spellings", async () => {
    await fc.assert(
      fc.asyncProperty(meaning, spelling, async (m, s) => {
        const wire = spelledWire(m, s);
        const spelled = await through(wire);
        // What reaches the upstream: the path as the URL parser serializes it (dot segments resolved).
        const sent = new URL(`https://gateway.test${wire.path}`).pathname;
        if (wire.refused || routesAsAnotherPath(sent)) {
          expect(spelled.res.status).toBe(400);
          // A HEAD answer has no body to read.
          if (wire.method !== "HEAD") expect(((await spelled.res.json()) as { detail: unknown }).detail).toEqual(expect.any(String));
          expect(spelled.counters).toEqual([]);
          expect(spelled.forwarded).toBeUndefined();
          return;
        }
        const sameMount = await through(canonicalWire(m));
        const fromRoot = await through(canonicalWire(m, ""));
        expect(spelled.res.status, `${wire.method} ${wire.path}`).toBe(200);

        // One rule, one counter, whichever spelling and mount.
        expect(spelled.counters).toHaveLength(1);
        expect(spelled.counters).toEqual(sameMount.counters);
        expect(spelled.counters).toEqual(fromRoot.counters);

        // Forwarded as sent, which the upstream reads as what was meant.
        expect(new URL(spelled.forwarded!.url).pathname).toBe(sent);
        expect(spelled.action).toEqual(sameMount.action);
        const { mount, ...acted } = spelled.action!;
        expect(acted).toEqual(intent(m));
        expect(mount).toBe(m.mount);
        expect([...spelled.forwarded!.headers.keys()].filter((n) => n.includes("_"))).toEqual([]);
        expect(spelled.forwarded!.headers.get("x-real-ip")).toBe("203.0.113.9");
      }),
      { numRuns: 1000, seed: 20261123 },
    );
  });
});
