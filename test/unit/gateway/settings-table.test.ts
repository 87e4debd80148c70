// docs/configuration.md's settings table is the settings schema's (src/gateway/settings-schema.ts):
// rendered from it here and compared, so the page cannot drift from what the gateway reads.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { REGIONS } from "../../../src/core/rules/schema.ts";
import { settingDocs, VarsSchema } from "../../../src/gateway/settings-schema.ts";
import { readEnvironment } from "../../../tools/deploy/environment.ts";
import { LOCAL_BINDINGS } from "../../../tools/local-bindings.ts";

const ROOT = join(import.meta.dirname, "../../..");
const HEADER = "| variable | type | default | meaning |";

/** A markdown table cell: a `|` inside it (code spans included) is escaped. */
const cell = (text: string) => text.replaceAll("|", "\\|");

/** The table as the schema declares it: one row per variable, in the schema's order. */
function renderedTable(): string {
  const rows = Object.entries(VarsSchema.shape).map(([name, schema]) => {
    const doc = settingDocs.get(schema);
    if (!doc) throw new Error(`${name} has no documentation in the settings schema`);
    return `| \`${name}\` | ${cell(doc.type)} | ${cell(doc.default)} | ${cell(doc.meaning)} |`;
  });
  return [HEADER, "|---|---|---|---|", ...rows].join("\n");
}

/**
 * A table's rows as their cells, without the delimiter row: a formatter may pad the columns or
 * rewrite the delimiter row, and the table means the same.
 */
function cells(table: string): string[][] {
  return table
    .split("\n")
    .map((line) =>
      line
        .trim()
        .replace(/^\|/, "")
        .replace(/(?<!\\)\|$/, "")
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim()),
    )
    .filter((row) => !row.every((cell) => /^:?-+:?$/.test(cell)));
}

/** The table in the page: the lines from its header to the first line that is not a table row. */
function documentedTable(page: string): string {
  const lines = page.split("\n");
  const start = lines.findIndex((line) => cells(line)[0]?.join("|") === "variable|type|default|meaning");
  if (start < 0) return "";
  const end = lines.findIndex((line, i) => i > start && !line.trim().startsWith("|"));
  return lines.slice(start, end < 0 ? undefined : end).join("\n");
}

describe("docs/configuration.md's settings table", () => {
  it("is the one the settings schema renders", () => {
    const expected = renderedTable();
    const actual = documentedTable(readFileSync(join(ROOT, "docs/configuration.md"), "utf8"));
    expect(
      cells(actual),
      `docs/configuration.md's settings table differs from src/gateway/settings-schema.ts; put this table in its place:\n\n${expected}\n`,
    ).toEqual(cells(expected));
  });

  it("has every variable documented, and no cell that breaks its row", () => {
    for (const [name, schema] of Object.entries(VarsSchema.shape)) {
      const doc = settingDocs.get(schema);
      expect(doc, name).toBeDefined();
      for (const text of [doc!.type, doc!.default, doc!.meaning]) {
        expect(text.trim(), name).not.toBe("");
        expect(text, name).not.toContain("\n");
      }
    }
  });
});

describe("the settings schema", () => {
  it("fills each default the table shows, for a missing or an empty variable", () => {
    const minimal = { REGION: "us", COUNTER_JURISDICTION: "none" };
    const defaults = {
      FAIL_MODE: "open",
      COUNTER_TIMEOUT_MS: 1_000,
      UPSTREAM_TIMEOUT_MS: 30_000,
      DEV_SETTINGS: "refuse",
      TIME_SCALE: 1,
      LIMITER_ALGORITHM: "sliding-window",
      ROUTING: "hosts",
      OVERRIDES_REFRESH_MS: 5_000,
      DECISION_LOG_SAMPLE: 0.01,
      METRICS_FLUSH_MS: 10_000,
    };
    expect(VarsSchema.parse(minimal)).toMatchObject(defaults);
    const empty = Object.fromEntries(Object.keys(defaults).map((name) => [name, ""]));
    expect(VarsSchema.parse({ ...minimal, ...empty })).toMatchObject(defaults);
    for (const [name, value] of Object.entries(defaults)) {
      expect(settingDocs.get(VarsSchema.shape[name as keyof typeof defaults])!.default, name).toBe(`\`${value}\``);
    }
  });

  it.each([
    [{ REGION: undefined }, "REGION", 'Invalid option: expected one of "us"|"eu"'],
    [{ REGION: "ap" }, "REGION", 'Invalid option: expected one of "us"|"eu"'],
    [{ COUNTER_JURISDICTION: undefined }, "COUNTER_JURISDICTION", 'Invalid option: expected one of "us"|"eu"|"none"'],
    [{ FAIL_MODE: "shut" }, "FAIL_MODE", 'Invalid option: expected one of "open"|"closed"'],
    [{ COUNTER_TIMEOUT_MS: "0" }, "COUNTER_TIMEOUT_MS", "Too small: expected number to be >0"],
    [{ UPSTREAM_TIMEOUT_MS: "300001" }, "UPSTREAM_TIMEOUT_MS", "Too big: expected number to be <=300000"],
    [{ COUNTER_TIMEOUT_MS: "1.5" }, "COUNTER_TIMEOUT_MS", "Invalid input: expected int, received number"],
    [{ TIME_SCALE: "0" }, "TIME_SCALE", "Too small: expected number to be >0"],
    [{ OVERRIDES_REFRESH_MS: "99" }, "OVERRIDES_REFRESH_MS", "Too small: expected number to be >=100"],
    [{ DECISION_LOG_SAMPLE: "1.5" }, "DECISION_LOG_SAMPLE", "Too big: expected number to be <=1"],
    [{ METRICS_FLUSH_MS: "-1" }, "METRICS_FLUSH_MS", "Too small: expected number to be >=0"],
  ])("refuses %o, naming %s", (vars, path, message) => {
    const result = VarsSchema.safeParse({ REGION: "us", COUNTER_JURISDICTION: "none", ...vars });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({ path: [path], message });
  });

  it.each(REGIONS)("declares every variable wrangler.toml sets for %s, and accepts their values", async (region) => {
    const { vars } = await readEnvironment(join(ROOT, "wrangler.toml"), region);
    expect(Object.keys(vars).filter((name) => !(name in VarsSchema.shape))).toEqual([]);
    const parsed = VarsSchema.parse(vars);
    expect(parsed).toMatchObject({ REGION: region, COUNTER_JURISDICTION: region, DEV_SETTINGS: "refuse", ROUTING: "hosts" });
    // The local runs' variables go on top of these (tools/local-bindings.ts): declared too.
    expect(Object.keys(LOCAL_BINDINGS).filter((name) => !(name in VarsSchema.shape))).toEqual([]);
    expect(VarsSchema.safeParse({ ...vars, ...LOCAL_BINDINGS }).success).toBe(true);
  });
});
