// Pure: the request a scenario sends for a row of the hosted API's table, derived from the row
// itself (its first matcher, as the load test derives its traffic) and checked against the
// gateway's own classifier, so the bench can never count on another row than it reports.
import type { Rule } from "../../src/core/rules/load.ts";
import { sampleRequest } from "../../src/core/rules/sample-request.ts";
import { classifiers, ruleTables } from "../../src/core/rules/tables.ts";

export interface Target {
  readonly row: number;
  readonly name: string;
  readonly method: string;
  readonly path: string;
  /** The US limit as published (the bench runs the us environment). */
  readonly count: number;
  readonly intervalS: number;
}

/** The default: row 5, "repos-key", 100 per 60 s per API key (the row). */
export const DEFAULT_ROW = 5;

/** @throws naming the row when it is not a hosted-API row counted per API key */
export function targetFor(row: number): Target {
  const rule: Rule | undefined = ruleTables["hosted-api"].rules.find((r) => r.id === row);
  if (!rule) throw new Error(`row ${row} is not in rules/hosted-api.json`);
  // One client is one API key: a per-IP or per-user row would need another identity.
  if (rule.identity !== "api-key") throw new Error(`row ${row} (${rule.name}) is counted per ${rule.identity}; the bench needs a row counted per API key`);
  const { method, path } = sampleRequest(rule);
  const met = classifiers["hosted-api"].classify({ method, path, apiKey: "accuracy-check", userId: undefined, clientIp: "127.0.0.1" }).rule;
  if (met.id !== row) throw new Error(`row ${row}: ${method} ${path} meets row ${met.id}, not row ${row}`);
  const { count, interval } = rule.limits.us;
  return { row, name: rule.name, method, path, count, intervalS: interval };
}

/** The window the gateway applies under TIME_SCALE, in real milliseconds (src/gateway/rate-limit.ts). */
export const scaledIntervalMs = (intervalS: number, timeScale: number): number => Math.max(1, Math.round((intervalS * 1000) / timeScale));
