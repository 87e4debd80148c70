// What the rule loader reports for a broken table, for the loader tests of each section.
import { expect } from "vitest";
import { loadRuleTable, RuleTableError } from "../../../../src/core/rules/load.ts";

/** The problems `loadRuleTable` reports for `file` (loaded as rules/test.json); fails the test when it accepts the table. */
export function loaderProblems(file: unknown): readonly string[] {
  try {
    loadRuleTable(file, "rules/test.json");
  } catch (error) {
    expect(error).toBeInstanceOf(RuleTableError);
    expect((error as Error).message).toContain("rules/test.json");
    return (error as RuleTableError).problems;
  }
  throw new Error("the loader accepted a broken table");
}
