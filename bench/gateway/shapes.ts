// Pure: each traffic shape as a plan of requests (who sends what, how many, how concurrently) and
// the answers every correct target must give. Identities are fresh per round (the round number is
// in every key and IP), so a round never meets a counter an earlier round warmed or exhausted.
import { usLimit } from "./rule-limits.ts";
import { SHAPE_INFO, type ShapeName } from "./shape-names.ts";
import type { BenchRoute } from "./routes.ts";
import type { TargetName } from "./target-names.ts";

/** How big each shape is (from the options; the warm-up uses smaller ones). */
export interface ShapeSizes {
  readonly keys: number;
  readonly warmPasses: number;
  readonly requests: number;
  readonly burstFactor: number;
  readonly connections: number;
}

/** What every answer of the measured run must be. */
export type Expectation =
  | { readonly kind: "admit-all" }
  | { readonly kind: "deny-all" }
  /** At most (and, for an exact limiter, exactly) `count` admitted. */
  | { readonly kind: "burst"; readonly count: number };

export type Headers = Readonly<Record<string, string>>;

export interface ShapePlan {
  readonly shape: ShapeName;
  readonly route: BenchRoute;
  /** Requests in the measured run. */
  readonly amount: number;
  readonly connections: number;
  /** The headers of the i-th request of the measured run (0-based). */
  headersFor(i: number): Headers;
  /** Requests sent one by one before the run and not measured (exhausting a key). */
  readonly prelude: readonly Headers[];
  readonly expect: Expectation;
}

const key = (round: number, name: string) => ({ "x-api-key": `bench-r${round}-${name}` });

/**
 * A distinct address in 10.0.0.0/8 for every (round, i) with i < keys: the gateway keys anonymous
 * clients by CF-Connecting-IP, which the bench sets per request (Miniflare and wrangler dev pass a
 * client-sent one through; checked at start).
 */
export function clientIp(round: number, i: number, keys: number): string {
  const n = round * keys + i + 1;
  return `10.${(n >>> 16) & 0xff}.${(n >>> 8) & 0xff}.${n & 0xff}`;
}

/** @param round 0 for the warm-up, 1.. for the measured rounds */
export function planShape(shape: ShapeName, round: number, sizes: ShapeSizes): ShapePlan {
  const route = SHAPE_INFO[shape].route;
  const base = { shape, route, prelude: [] as Headers[], connections: sizes.connections };
  // autocannon refuses more connections than requests.
  const within = (amount: number) => ({ amount, connections: Math.min(sizes.connections, amount) });
  switch (shape) {
    case "new-keys":
      return { ...base, ...within(sizes.keys), headersFor: (i) => key(round, `k${i}`), expect: { kind: "admit-all" } };
    case "warm-keys":
      return { ...base, ...within(sizes.keys * sizes.warmPasses), headersFor: (i) => key(round, `k${i % sizes.keys}`), expect: { kind: "admit-all" } };
    case "one-key":
      return { ...base, ...within(sizes.requests), headersFor: () => key(round, "one"), expect: { kind: "admit-all" } };
    case "deny-flood": {
      const exhausted = key(round, "exhausted");
      const { count } = usLimit(route.row);
      return {
        ...base,
        ...within(sizes.requests),
        prelude: Array.from({ length: count }, () => exhausted),
        headersFor: () => exhausted,
        expect: { kind: "deny-all" },
      };
    }
    case "new-ips":
      return { ...base, ...within(sizes.keys), headersFor: (i) => ({ "cf-connecting-ip": clientIp(round, i, sizes.keys) }), expect: { kind: "admit-all" } };
    case "hot-key": {
      const { count } = usLimit(route.row);
      const amount = count * sizes.burstFactor;
      // One connection per request: the whole burst is in flight at once.
      return { ...base, amount, connections: amount, headersFor: () => key(round, "hot"), expect: { kind: "burst", count } };
    }
  }
}

/** What a target must answer: the bare Worker limits nothing, so it must admit every request. */
export function expectationFor(plan: ShapePlan, target: TargetName): Expectation {
  return target === "bare" ? { kind: "admit-all" } : plan.expect;
}
