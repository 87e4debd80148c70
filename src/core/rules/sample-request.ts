import type { Rule } from "./load.ts";

export interface SampleRequest {
  readonly method: string;
  readonly path: string;
}

const SAMPLE_UUID = "0b6f0d8e-4a51-4c3e-9a0e-6f1f0e2a9b41";

/**
 * A method and path that `rule`'s first matcher selects: how the Workers tests and the load test
 * derive the traffic for a row from the row itself, so neither can drift from the table.
 */
export function sampleRequest(rule: Rule): SampleRequest {
  const matcher = rule.matchers[0]!;
  const method = matcher.method ?? "GET";
  if (!matcher.path) return { method, path: "/sample/resource" };
  const { kind, pattern } = matcher.path;
  switch (kind) {
    case "exact":
    case "prefix":
      return { method, path: pattern };
    case "template":
      return { method, path: pattern.replace("{uuid}", SAMPLE_UUID) };
    case "contains":
      return { method, path: `/sessions/s-1${pattern}/x` };
    case "suffix":
      return { method, path: `/flows/f-1${pattern}` };
  }
}
