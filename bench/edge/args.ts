// Pure: command-line arguments of `npm run bench:edge`. Every refusal is a BadArgument naming the
// option (tools/kit/ prints it as one line).
import { BadArgument, fileOption, numberOption, parseOptions } from "../../tools/kit/args.ts";
import { exitStatusText } from "../../tools/kit/verdict.ts";
import { DEFAULT_MIX, MIXES, parseMixes, type Mix } from "./mixes.ts";
import { parseRttList, type Rtt } from "./rtt.ts";

export { BadArgument };

export const DEFAULT_KS = [1, 16, 64] as const;
export const DEFAULT_RTTS = "1,10,40";
/** Enough answers for a p99 of one run, few enough for the whole table to take minutes on 2 cores. */
export const DEFAULT_REQUESTS = 200;

export interface EdgeOptions {
  readonly ks: readonly number[];
  readonly rtts: readonly Rtt[];
  readonly mixes: readonly Mix[];
  readonly requests: number;
  readonly timeScale: number;
  readonly counterTimeoutMs: number;
  readonly json?: string;
  readonly help: boolean;
}

export const USAGE = `usage: npm run bench:edge -- [--k 1,16,64] [--rtt 1,10,40] [--mixes ${DEFAULT_MIX}|all|a,b]
                           [--requests N] [--time-scale N] [--limiter-timeout-ms N] [--json FILE]

Runs K copies of the built gateway (one Miniflare, one owner's Durable Objects, as bench:accuracy)
with a round trip injected on every isolate-to-object call, and a bare pass-through Worker, and
sends each mix to both. Prints per mix, round trip, K and target: latency (added over bare), object
calls and SQLite rows per 1,000 requests, workerd CPU per request and dollars per million requests
(bench/edge/prices.ts; docs/edge-cost.md).

  --k LIST              isolate counts (default ${DEFAULT_KS.join(",")})
  --rtt LIST            round trips, ms, or lognormal:MEDIAN,SIGMA separated by ; (default ${DEFAULT_RTTS})
  --mixes LIST          ${MIXES.map((m) => m.name).join(", ")}, or all (default ${DEFAULT_MIX})
  --requests N          requests per mix and run: the first N of the mix's schedule (default ${DEFAULT_REQUESTS})
  --time-scale N        TIME_SCALE: every window divided by N (default 1: real windows and rates)
  --limiter-timeout-ms N  COUNTER_TIMEOUT_MS (default 1000, the gateway's)
  --json FILE           also write every run's figures to FILE

${exitStatusText({ pass: "every run answered every request", fail: "some request got no answer or a 5xx", couldNotRun: "the run could not be made" })}`;

export function parseEdgeArgs(argv: readonly string[]): EdgeOptions {
  const { values } = parseOptions(argv, {
    k: { type: "string" },
    rtt: { type: "string" },
    mixes: { type: "string" },
    requests: { type: "string" },
    "time-scale": { type: "string" },
    "limiter-timeout-ms": { type: "string" },
    json: { type: "string" },
    help: { type: "boolean", short: "h" },
  });
  const ks =
    values.k === undefined
      ? [...DEFAULT_KS]
      : [...new Set(values.k.split(",").map((k) => numberOption("k", k.trim(), 1, { integer: true, min: 1, max: 128 })))];
  const json = fileOption("json", values.json);
  return {
    ks,
    rtts: parseRttList(values.rtt ?? DEFAULT_RTTS),
    mixes: parseMixes(values.mixes ?? DEFAULT_MIX),
    requests: numberOption("requests", values.requests, DEFAULT_REQUESTS, { integer: true, min: 1, max: 100_000 }),
    timeScale: numberOption("time-scale", values["time-scale"], 1, { max: 3600 }),
    counterTimeoutMs: numberOption("limiter-timeout-ms", values["limiter-timeout-ms"], 1000, { integer: true, min: 1, max: 60_000 }),
    ...(json !== undefined && { json }),
    help: values.help ?? false,
  };
}
