// Pure: command-line arguments of `npm run bench:accuracy`. Every refusal is a BadArgument naming
// the option (tools/kit/ prints it as one line).
import { BadArgument, fileOption, numberOption, parseOptions } from "../../tools/kit/args.ts";
import { exitStatusText } from "../../tools/kit/verdict.ts";
import { parseRtt, type Rtt } from "../edge/rtt.ts";
import { VarsSchema } from "../../src/gateway/settings-schema.ts";

export { BadArgument };

export const BASIC_NAMES = ["sequential", "concurrent", "steady", "warm-many"] as const;
export const FAULT_NAMES = ["slow-object", "failing-object", "object-restart", "eviction", "limit-raise", "limit-lower", "clock-skew"] as const;
export const PAST_LIMIT_NAMES = ["past-150", "past-200", "in-flight-400"] as const;
export const SCENARIO_NAMES = [...BASIC_NAMES, ...PAST_LIMIT_NAMES, ...FAULT_NAMES] as const;
export type ScenarioName = (typeof SCENARIO_NAMES)[number];

export const DEFAULT_KS = [1, 4, 16, 64] as const;
/**
 * 60 s windows become 10 s: short enough for a full run to take minutes, long enough for a round
 * robin of 200 requests over 64 cold isolates to fit in one window (docs/bench.md). With round
 * trips the default is lower (defaultTimeScale).
 */
export const DEFAULT_TIME_SCALE = 6;

/**
 * The time scale a run takes when none is given: DEFAULT_TIME_SCALE, or with round trips the
 * largest whole scale up to it at which a client sending one request at a time, each costing two
 * round trips (the counter and the overrides store) and 20 ms more, sends twice the row's `count`
 * within half a window. Round trips are real time while the windows are scaled, so at 40 ms a 10 s
 * window passes before such a client can send more than its limit, and sequential, clock-skew and
 * limit-raise would judge a client that never outpaced its limit (docs/accuracy.md). At 40 ms on
 * row 5 that is 1: the windows as published.
 */
export function defaultTimeScale(target: { count: number; intervalS: number }, rtt: Rtt | undefined): number {
  if (!rtt) return DEFAULT_TIME_SCALE;
  const roundTripMs = rtt.kind === "fixed" ? rtt.ms : rtt.median;
  const neededMs = 2 * target.count * (2 * roundTripMs + 20);
  return Math.max(1, Math.min(DEFAULT_TIME_SCALE, Math.floor((0.5 * target.intervalS * 1000) / neededMs)));
}
/** Below the default 1000 ms so a slow-object outage costs seconds, not minutes. */
export const DEFAULT_LIMITER_TIMEOUT_MS = 250;
/** The gateway's minimum: overrides reach every isolate fast. */
export const DEFAULT_CONFIG_REFRESH_MS = 100;

/**
 * OVERRIDES_REFRESH_MS for a run: the minimum, or with round trips the gateway's own default. An
 * isolate whose copy is older than the setting reads the overrides before it decides: one more
 * round trip, which at 100 ms every request of the bench's isolates (each serving only the one
 * client) would pay, and deployed isolates, serving many clients and refreshing every 5 s, rarely do.
 */
export const overridesRefreshMs = (rtt: Rtt | undefined): number => (rtt ? DEPLOYED_REFRESH_MS : DEFAULT_CONFIG_REFRESH_MS);
const DEPLOYED_REFRESH_MS: number = VarsSchema.shape.OVERRIDES_REFRESH_MS.parse(undefined);
const MAX_ISOLATES = 128;

export interface AccuracyOptions {
  readonly ks: readonly number[];
  readonly scenarios: readonly ScenarioName[];
  /** Undefined: defaultTimeScale for the row and the round trip. */
  readonly timeScale?: number;
  readonly row: number;
  readonly counterTimeoutMs: number;
  /** The round trip of every isolate-to-object call (bench/edge/rtt.ts); none when absent. */
  readonly rtt?: Rtt;
  readonly json?: string;
  readonly help: boolean;
}

export const USAGE = `usage: npm run bench:accuracy -- [--k 1,4,16,64] [--scenarios a,b|basic|past-limit|faults|all]
                              [--time-scale N] [--row N] [--limiter-timeout-ms N] [--rtt MS|lognormal:MEDIAN,SIGMA]
                              [--json FILE]

Runs K copies of the built gateway (wrangler.toml env us, npm start's local bindings) in one
Miniflare, all counting on one owner's Durable Objects, spreads one client (a fresh API key per
scenario and K) over them, and prints per scenario a row per K: admitted vs count, over-admissions,
early 429s and whether Retry-After was honoured, then a one-line verdict per scenario.

  --k LIST              isolate counts (default 1,4,16,64)
  --scenarios LIST      ${SCENARIO_NAMES.join(", ")}
                        or basic (the first four), faults (the rest), all (default)
  --time-scale N        TIME_SCALE: every interval divided by N (default ${DEFAULT_TIME_SCALE}; with
                        --rtt, lower: a one-at-a-time client must outpace its limit)
  --row N               hosted-API row counted per API key (default 5, 100 per 60 s)
  --limiter-timeout-ms N  COUNTER_TIMEOUT_MS for the run (default ${DEFAULT_LIMITER_TIMEOUT_MS})
  --rtt MS              a round trip on every call from an isolate to a Durable Object
                        (counters, overrides, metrics), injected around the gateway: a fixed
                        delay (--rtt 40) or log-normal (--rtt lognormal:40,0.3); default none
  --json FILE           also write the raw figures and timelines to FILE

${exitStatusText({ pass: "every scenario met its expectation", fail: "one did not", couldNotRun: "the run could not be made" })}`;

/** A whole number from 1 to `max`. */
const positiveInteger = (option: string, raw: string | undefined, fallback: number, max = Number.MAX_SAFE_INTEGER) =>
  numberOption(option, raw, fallback, { integer: true, min: 1, max });

export function parseScenarios(raw: string): ScenarioName[] {
  const names: ScenarioName[] = [];
  for (const part of raw.split(",").map((p) => p.trim())) {
    if (part === "all") names.push(...SCENARIO_NAMES);
    else if (part === "basic") names.push(...BASIC_NAMES);
    else if (part === "faults") names.push(...FAULT_NAMES);
    else if (part === "past-limit") names.push(...PAST_LIMIT_NAMES);
    else if ((SCENARIO_NAMES as readonly string[]).includes(part)) names.push(part as ScenarioName);
    else throw new BadArgument(`--scenarios: unknown scenario "${part}" (known: ${SCENARIO_NAMES.join(", ")}, basic, past-limit, faults, all)`);
  }
  // In the table's order, each once.
  return SCENARIO_NAMES.filter((name) => names.includes(name));
}

export function parseAccuracyArgs(argv: readonly string[]): AccuracyOptions {
  const { values } = parseOptions(argv, {
    k: { type: "string" },
    scenarios: { type: "string" },
    "time-scale": { type: "string" },
    row: { type: "string" },
    "limiter-timeout-ms": { type: "string" },
    rtt: { type: "string" },
    json: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  // In the order given, each once.
  const ks = values.k === undefined ? [...DEFAULT_KS] : [...new Set(values.k.split(",").map((k) => positiveInteger("k", k.trim(), 0, MAX_ISOLATES)))];
  // The gateway's own bounds on TIME_SCALE.
  const timeScale = values["time-scale"] === undefined ? undefined : numberOption("time-scale", values["time-scale"], DEFAULT_TIME_SCALE, { max: 3600 });
  const json = fileOption("json", values.json);
  return {
    ks,
    scenarios: values.scenarios === undefined ? [...SCENARIO_NAMES] : parseScenarios(values.scenarios),
    ...(timeScale !== undefined && { timeScale }),
    row: positiveInteger("row", values.row, 5),
    counterTimeoutMs: positiveInteger("limiter-timeout-ms", values["limiter-timeout-ms"], DEFAULT_LIMITER_TIMEOUT_MS, 60_000),
    ...(values.rtt !== undefined && { rtt: parseRtt(values.rtt) }),
    ...(json !== undefined && { json }),
    help: values.help ?? false,
  };
}
