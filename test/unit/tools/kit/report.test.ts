import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { textTable, wrap, writeJson } from "../../../../tools/kit/report.ts";

describe("textTable", () => {
  it("prints a plain, compact table: no colour codes, one line per row, aligned as asked", () => {
    const text = textTable({
      head: ["name", "n"],
      aligns: ["left", "right"],
      rows: [
        ["a", "1"],
        ["bb", "100"],
      ],
    });
    expect(text).not.toMatch(/\x1b\[/);
    const lines = text.split("\n");
    // Top border, head, separator, two rows, bottom border: compact has no line between rows.
    expect(lines).toHaveLength(6);
    expect(lines[1]).toMatch(/│ name │ +n │/);
    expect(lines[3]).toMatch(/│ a +│ +1 │/);
    expect(lines[4]).toMatch(/│ bb +│ 100 │/);
    expect(new Set(lines.map((l) => [...l].length)).size).toBe(1);
  });

  it("spans a cell over columns and wraps long cells inside fixed widths", () => {
    const spanned = textTable({ head: ["a", "b"], rows: [["1", "2"], [{ colSpan: 2, content: "" }], ["3", "4"]] });
    expect(spanned.split("\n")).toHaveLength(7);
    const wrapped = textTable({ head: ["why"], rows: [["one two three four five six"]], widths: [12], wrap: true });
    // 12 columns inside the borders: the cell's words go onto three lines instead of one wide one.
    expect(wrapped.split("\n").map((l) => [...l].length)).toEqual(Array(7).fill(14));
    expect(wrapped).toMatch(/│ one two +│\n│ three four │\n│ five six +│/);
  });
});

describe("wrap", () => {
  it("breaks at spaces within the width and indents continuation lines past the line's own lead", () => {
    expect(wrap("  one two three four", 12)).toEqual(["  one two", "      three", "      four"]);
    expect(wrap("one two three", 9, "")).toEqual(["one two", "three"]);
    expect(wrap("short", 100)).toEqual(["short"]);
  });

  it("never breaks a word: a longer one stands alone", () => {
    expect(wrap("a verylongword b", 6)).toEqual(["a", "    verylongword", "    b"]);
  });
});

describe("writeJson", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("writes indented JSON, making the directory, and returns the absolute path", async () => {
    dir = await mkdtemp(join(tmpdir(), "tollgate-kit-"));
    const path = await writeJson(join(dir, "deep", "r.json"), { verdict: "PASS", n: [1] });
    expect(path).toBe(join(dir, "deep", "r.json"));
    expect(await readFile(path, "utf8")).toBe('{\n  "verdict": "PASS",\n  "n": [\n    1\n  ]\n}\n');
  });
});
