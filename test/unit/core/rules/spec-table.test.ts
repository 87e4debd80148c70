// Holds rules/hosted-api.json against the published table (shared/spec/hosted-api.md, Limits),
// value by value, for both regions. The table is vendored in test/fixtures so a clone without
// shared/ still runs this; when shared/ is beside the clone the vendored copy is checked too.
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { inRepo } from "../../support/paths.ts";

const vendored = readFileSync(inRepo("test/fixtures/spec-limits-table.md"), "utf8");

interface SpecRow {
  id: number;
  match: string;
  identity: string;
  us: { count: number; interval: number };
  eu: { count: number; interval: number };
  category: string;
}

/** Rows of the table headed "| # | Match | ..." (the only such table in the spec). */
function parseTable(markdown: string): SpecRow[] {
  const lines = markdown.split("\n");
  const start = lines.findIndex((line) => line.startsWith("| # | Match |"));
  if (start < 0) throw new Error("no Limits table found");
  const end = lines.findIndex((line, i) => i > start && !line.startsWith("|"));
  return lines.slice(start + 2, end < 0 ? undefined : end).map((line) => {
    const cells = line
      .split("|")
      .slice(1, -1)
      .map((c) => c.trim());
    const limit = (cell: string) => {
      const m = /^(\d+) \/ (\d+)$/.exec(cell);
      if (!m) throw new Error(`bad limit cell "${cell}"`);
      return { count: Number(m[1]), interval: Number(m[2]) };
    };
    return {
      id: Number(cells[0]),
      match: cells[1]!,
      identity: cells[2]!,
      us: limit(cells[3]!),
      eu: limit(cells[4]!),
      category: cells[5]!,
    };
  });
}

const IDENTITY_FROM_SPEC: Record<string, string> = {
  IP: "ip",
  "`x-api-key`": "api-key",
  "`x-user-id` + IP": "user-ip",
};

/** The (method, pattern) pairs a spec Match cell names, as "METHOD pattern" or "pattern" strings. */
function specMatchers(cell: string): string[] {
  if (cell.startsWith("any request with") || cell.includes("catch-all")) return ["any request"];
  const out: string[] = [];
  const containing = /^`([A-Z]+)` path containing `([^`]+)`$/.exec(cell);
  if (containing) return [`${containing[1]} contains ${containing[2]}`];
  const alternatives = cell.replace(/\s*\(.*\)$/, "").split(/, | or /);
  let method = "";
  for (const alt of alternatives) {
    const text = alt.replace(/`/g, "");
    if (/^[A-Z]+$/.test(text)) {
      out.push(text);
      continue;
    }
    const m = /^(?:([A-Z]+) )?(.+)$/.exec(text)!;
    // "GET /runs/{uuid} or /api/v1/runs/{uuid}": the method carries over to the alternative.
    if (m[1]) method = m[1];
    else if (!alt.startsWith("`GET") && !cell.startsWith("`GET")) method = "";
    const pattern = m[2]!;
    const kind = pattern.startsWith("*/") ? "suffix" : pattern.includes("{uuid}") ? "template" : "";
    out.push([method, kind, fromRoot(pattern.replace(/^\*/, ""))].filter(Boolean).join(" "));
  }
  // "/runs/{uuid} or /api/v1/runs/{uuid}" is one matcher in the data, under both roots.
  return [...new Set(out)];
}

/** A spec pattern written under an alias root, as the data writes it: from "/". */
function fromRoot(pattern: string): string {
  const root = hostedApiTable.roots.find((r) => r !== "/" && pattern.startsWith(`${r}/`));
  return root ? pattern.slice(root.length) : pattern;
}

function ruleMatchers(id: number): string[] {
  const rule = hostedApiTable.rules.find((r) => r.id === id)!;
  return rule.matchers.map((m) => {
    if (!m.method && !m.path) return "any request";
    if (!m.path) return m.method!;
    // exact and prefix are both written as a bare path in the spec; the kind is our reading.
    const kind = m.path.kind === "exact" || m.path.kind === "prefix" ? "" : m.path.kind;
    return [m.method ?? "", kind, m.path.pattern].filter(Boolean).join(" ");
  });
}

const spec = parseTable(vendored);

describe("rules/hosted-api.json against the published table", () => {
  it("has the 29 published rows, in order, with ids 1..29", () => {
    expect(spec.map((r) => r.id)).toEqual(Array.from({ length: 29 }, (_, i) => i + 1));
    expect(hostedApiTable.rules.map((r) => r.id)).toEqual(spec.map((r) => r.id));
  });

  describe.each(spec)("row $id", (row) => {
    const rule = hostedApiTable.rules.find((r) => r.id === row.id)!;
    it("US limit", () => expect(rule.limits.us).toEqual(row.us));
    it("EU limit", () => expect(rule.limits.eu).toEqual(row.eu));
    it("identity key", () => expect(rule.identity).toBe(IDENTITY_FROM_SPEC[row.identity]));
    it("category", () => expect(rule.category).toBe(row.category));
    it("matchers", () => expect(ruleMatchers(row.id)).toEqual(specMatchers(row.match)));
    it("enforces", () => expect(rule.mode).toBe("enforce"));
  });

  it("serves every row under /api/v1 too, as row 23 shows the hosted API does", () => {
    expect(hostedApiTable.roots).toEqual(["/", "/api/v1"]);
  });

  it("puts the defaults (25, 26) and the catch-all (29) after every specific row", () => {
    const order = hostedApiTable.byPrecedence.map((r) => r.id);
    expect(order.slice(-3)).toEqual([25, 26, 29]);
    expect(order.slice(0, -3)).toEqual(spec.map((r) => r.id).filter((id) => ![25, 26, 29].includes(id)));
  });

  const original = inRepo("../shared/spec/hosted-api.md");
  it.skipIf(!existsSync(original))("vendored table is identical to shared/spec/hosted-api.md", () => {
    expect(parseTable(readFileSync(original, "utf8"))).toEqual(spec);
  });
});
