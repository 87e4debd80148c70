// Pure: the traffic mixes of `npm run bench:edge`, as a schedule of requests (when, which key,
// which isolate), so what a mix sends is testable without a gateway. Shaped as the hosted API's
// traffic is: many keys at low rates, a few heavy keys served by many isolates at once, bursts.
import { BadArgument } from "../../tools/kit/args.ts";

export interface Send {
  /** Milliseconds after the mix starts. */
  readonly atMs: number;
  /** Index of the API key (the run names the keys). */
  readonly key: number;
  readonly isolate: number;
}

export interface Mix {
  readonly name: string;
  /** The hosted-API row its keys are counted on. */
  readonly row: number;
  readonly does: string;
  /** The schedule for K isolates, a limit of `count` per `intervalMs` and at most `requests` requests. */
  schedule(k: number, count: number, intervalMs: number, requests: number): Send[];
}

/** One heavy key at `percent` of its limit, round robin over the K isolates, evenly paced. */
function heavy(row: number, percent: number): Mix {
  return {
    name: `heavy-${row}@${percent}`,
    row,
    does: `one key at ${percent}% of row ${row}, round robin over K isolates`,
    schedule: (k, count, intervalMs, requests) => {
      const periodMs = intervalMs / ((count * percent) / 100);
      return Array.from({ length: requests }, (_, i) => ({ atMs: i * periodMs, key: 0, isolate: i % k }));
    },
  };
}

/** Many keys, each at 2% of row 25, each on the isolate its number picks (a client stays near one data center). */
const MANY_LOW: Mix = {
  name: "many-low",
  row: 25,
  does: "100 keys at 2% of row 25 each, every key on one isolate",
  schedule: (k, count, intervalMs, requests) => {
    const keys = 100;
    const periodMs = intervalMs / ((count * 2) / 100) / keys;
    return Array.from({ length: requests }, (_, i) => ({ atMs: i * periodMs, key: i % keys, isolate: (i % keys) % k }));
  },
};

/** Twice the limit at once, round robin: exactly `count` may be admitted. */
const BURST: Mix = {
  name: "burst-25",
  row: 25,
  does: "one key, twice row 25's count (up to --requests) sent at once over K isolates",
  schedule: (k, count, _intervalMs, requests) => Array.from({ length: Math.min(requests, 2 * count) }, (_, i) => ({ atMs: 0, key: 0, isolate: i % k })),
};

export const MIXES: readonly Mix[] = [heavy(25, 50), heavy(25, 10), heavy(25, 90), heavy(11, 10), heavy(11, 50), heavy(11, 90), MANY_LOW, BURST];

/** The mix the "Done when" names: a client at 50% of row 25. */
export const DEFAULT_MIX = "heavy-25@50";

export function parseMixes(raw: string): Mix[] {
  if (raw.trim() === "all") return [...MIXES];
  return raw.split(",").map((name) => {
    const mix = MIXES.find((m) => m.name === name.trim());
    if (!mix) throw new BadArgument(`--mixes: unknown mix "${name}" (known: ${MIXES.map((m) => m.name).join(", ")}, all)`);
    return mix;
  });
}
