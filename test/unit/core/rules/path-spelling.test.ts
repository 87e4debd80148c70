// The spellings of a path the gateway forwards as sent, per upstream reading (docs/rules.md,
// "Canonical paths"): each row of that table, then a property over generated spellings.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { normalizePath } from "../../../../src/core/rules/normalize.ts";
import { isSlashRoute, PATH_READINGS, pathReadingOf, spellingRefusal, type PathReading } from "../../../../src/core/rules/path-spelling.ts";

/** The refusal for `sent`, or "forwarded" when the upstream reads it as the gateway does. */
function outcome(sent: string, reading: PathReading): string {
  const normalized = normalizePath(sent);
  if (!normalized.ok) throw new Error(`${sent} is malformed`);
  return spellingRefusal(sent, reading, normalized.upstreamPath) ?? "forwarded";
}

describe("a route its upstream spells with a trailing slash (SLASH_ROUTES)", () => {
  it("is forwarded as sent on that upstream only, and only with its one trailing slash", () => {
    expect(isSlashRoute("agent-server", "/mcp/")).toBe(true);
    expect(isSlashRoute("hosted-api", "/mcp/")).toBe(false);
    expect(isSlashRoute("agent-server", "/mcp")).toBe(false);
    expect(spellingRefusal("/agent-server/mcp/", "starlette-or-hono", "/agent-server/mcp", true)).toBeUndefined();
    expect(spellingRefusal("/agent-server/mcp//", "starlette-or-hono", "/agent-server/mcp", true)).toMatch(/empty segment/);
    expect(spellingRefusal("/agent-server//mcp/", "starlette-or-hono", "/agent-server/mcp", true)).toMatch(/empty segment/);
    expect(spellingRefusal("/agent-server/mcp/", "starlette-or-hono", "/agent-server/mcp", false)).toMatch(/ends in "\/"/);
  });
});

describe("spellingRefusal: the table of docs/rules.md", () => {
  // [spelling, Starlette's outcome, the agent server's (Starlette or Hono)]
  const rows: Array<[string, string, string]> = [
    ["/runs/query", "forwarded", "forwarded"],
    ["/", "forwarded", "forwarded"],
    ["/in%66o", "forwarded", "forwarded"],
    ["/store/items/caf%C3%A9", "forwarded", "forwarded"],
    ["/store/items/caf%c3%a9", "forwarded", "forwarded"],
    ["/threads/urn%3Auuid%3A67e55044-10b1-426f-9247-bb680e5fe0c8", "forwarded", "forwarded"],
    ["/runs/%7B67E55044-10B1-426F-9247-BB680E5FE0C8%7D", "forwarded", "forwarded"],
    ["/a%3Fb/%23c/%25d", "forwarded", "forwarded"],
    ["/runs%2Fquery", "forwarded", "encoded slash"],
    ["/assistants/echo%2Fgraph", "forwarded", "encoded slash"],
    ["/ok%2f", 'ends in "/"', "encoded slash"],
    ["/ok/", 'ends in "/"', 'ends in "/"'],
    ["//ok", 'empty segment ("//")', 'empty segment ("//")'],
    ["/runs//query", 'empty segment ("//")', 'empty segment ("//")'],
    ["/runs%2F%2Fquery", 'empty segment ("//")', "encoded slash"],
    ["/x/../ok", '"." or ".." segment', '"." or ".." segment'],
    ["/x/%2E%2e/ok", '"." or ".." segment', '"." or ".." segment'],
    ["/x%2F..%2Fok", '"." or ".." segment', "encoded slash"],
    // A literal "%2e" to Starlette once decoded (from "%252e"): a segment like any other.
    ["/x%2F%252e", "forwarded", "encoded slash"],
  ];
  it.each(rows)("%s: Starlette %s; the agent server %s", (sent, starlette, agentServer) => {
    expect(outcome(sent, "starlette")).toContain(starlette);
    expect(outcome(sent, "starlette-or-hono")).toContain(agentServer);
  });

  it("names the canonical spelling to send instead", () => {
    expect(outcome("//ok/", "starlette")).toContain('Send "/ok" instead.');
    expect(outcome("/a%20b/", "starlette-or-hono")).toContain('Send "/a%20b" instead.');
  });

  it("reads each upstream as its framework does; a table of another name the stricter way", () => {
    expect(PATH_READINGS).toEqual({ "hosted-api": "starlette", "control-plane": "starlette", "agent-server": "starlette-or-hono" });
    expect(pathReadingOf("agent-server")).toBe("starlette-or-hono");
    expect(pathReadingOf("hosted-api")).toBe("starlette");
    expect(pathReadingOf("something-else")).toBe("starlette-or-hono");
  });
});

describe("spellingRefusal: what is forwarded is read as the canonical path", () => {
  // Segments without "/" (a segment cannot hold one), some needing escapes.
  const segment = fc.oneof(fc.stringMatching(/^[a-z0-9._~-]{1,5}$/), fc.constantFrom("a b", "é", "50%", "{x}", "k:v", "?", "#", "."));
  const escapeAny = (s: string, mask: boolean[]) =>
    [...s]
      .map((ch, i) =>
        mask[i % mask.length] || !/[A-Za-z0-9\-._~!$&'()*+,;=:@]/.test(ch)
          ? [...new TextEncoder().encode(ch)].map((b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`).join("")
          : ch,
      )
      .join("");

  it("Starlette: a spelling it forwards decodes once to the canonical path; an agent-server one splits into the canonical segments", () => {
    fc.assert(
      fc.property(
        fc.array(segment, { maxLength: 4 }),
        fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom("/", "//", "%2F", "%2f", "/./"), { minLength: 1, maxLength: 4 }),
        fc.boolean(),
        (segments, mask, separators, trailing) => {
          const sent = segments.map((s, i) => separators[i % separators.length] + escapeAny(s, mask)).join("") + (trailing || segments.length === 0 ? "/" : "");
          const normalized = normalizePath(sent);
          if (!normalized.ok) return;
          for (const reading of ["starlette", "starlette-or-hono"] as const) {
            if (spellingRefusal(sent, reading, normalized.upstreamPath) !== undefined) continue;
            if (reading === "starlette") expect(decodeURIComponent(sent)).toBe(normalized.path);
            else expect(sent.split("/").map(decodeURIComponent).join("/")).toBe(normalized.path);
          }
        },
      ),
      { numRuns: 2000, seed: 43 },
    );
  });
});
