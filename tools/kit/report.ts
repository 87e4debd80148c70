// The printed report of every measuring command (the load test, the benches): one table style
// (cli-table3, no colour, no side borders, so it reads the same in a terminal, a log or docs/),
// one word wrap for the lines under it, and one way to write the JSON results to a file.
import Table from "cli-table3";
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";

export type Align = "left" | "right" | "center";
/** A cell: text, or cli-table3's cell object (a colSpan row between groups). */
export type Cell = Table.Cell;

export interface TableSpec {
  readonly head: readonly string[];
  readonly rows: readonly (readonly Cell[])[];
  /** Per column; left when absent. */
  readonly aligns?: readonly Align[];
  /** Fixed column widths (with `wrap`, long cells wrap inside them instead of widening the table). */
  readonly widths?: readonly number[];
  readonly wrap?: boolean;
}

/** The table as printed: compact, plain, headed. */
export function textTable(spec: TableSpec): string {
  const table = new Table({
    head: [...spec.head],
    style: { head: [], border: [], compact: true },
    ...(spec.aligns ? { colAligns: [...spec.aligns] } : {}),
    ...(spec.widths ? { colWidths: [...spec.widths] } : {}),
    ...(spec.wrap ? { wordWrap: true } : {}),
  });
  for (const row of spec.rows) table.push([...row]);
  return table.toString();
}

/**
 * Greedy word wrap; a line's own leading spaces are kept and continuation lines indented past them
 * by `indent` (a word longer than the width stands alone on its line).
 */
export function wrap(text: string, width: number, indent = "    "): string[] {
  const lead = /^ */.exec(text)![0];
  const next = `${lead}${indent}`;
  const lines: string[] = [];
  let line = lead;
  for (const word of text.slice(lead.length).split(" ")) {
    if (line.trim() && line.length + 1 + word.length > width) {
      lines.push(line);
      line = next + word;
    } else line = line.trim() ? `${line} ${word}` : line + word;
  }
  return [...lines, line];
}

/**
 * Writes `value` as indented JSON to `file` (its directory made if missing).
 * @returns the absolute path written
 */
export async function writeJson(file: string, value: unknown): Promise<string> {
  const path = resolve(file);
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, JSON.stringify(value, null, 2) + "\n");
  return path;
}
