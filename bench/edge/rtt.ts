// Pure: the round trip injected on every call from a gateway isolate to a Durable Object (counter,
// overrides, metrics), around the gateway, never inside it: a fixed delay or one drawn from a
// log-normal distribution. The isolate wrappers (bench/accuracy/wrapper-source.ts) run the same
// sampler: its source is written into them (sampleRttSource), so what is tested here is what runs.
import { BadArgument } from "../../tools/kit/args.ts";

export { BadArgument };

export type Rtt =
  | { readonly kind: "fixed"; readonly ms: number }
  /** exp(N(ln median, sigma²)): a median round trip with a right tail, as a network's. */
  | { readonly kind: "lognormal"; readonly median: number; readonly sigma: number };

export const NO_RTT: Rtt = { kind: "fixed", ms: 0 };

/** Longer than any continent-wide round trip: a typo, not a setting. */
const MAX_MS = 5000;

/**
 * `40` (fixed, ms) or `lognormal:40,0.3` (median ms, sigma).
 * @throws BadArgument naming `option`
 */
export function parseRtt(raw: string, option = "rtt"): Rtt {
  const text = raw.trim();
  const number = (part: string, what: string, max: number): number => {
    const value = Number(part);
    if (part.trim() === "" || !Number.isFinite(value) || value < 0 || value > max)
      throw new BadArgument(`--${option}: ${what} must be a number from 0 to ${max}, got "${part}" in "${raw}"`);
    return value;
  };
  if (text.startsWith("lognormal:")) {
    const parts = text.slice("lognormal:".length).split(",");
    if (parts.length !== 2) throw new BadArgument(`--${option}: expected lognormal:MEDIAN_MS,SIGMA, got "${raw}"`);
    return { kind: "lognormal", median: number(parts[0]!, "the median", MAX_MS), sigma: number(parts[1]!, "sigma", 3) };
  }
  return { kind: "fixed", ms: number(text, "the round trip", MAX_MS) };
}

/** A list of round trips: `1,10,40`; `;` separates when a log-normal's comma would be ambiguous. */
export function parseRttList(raw: string, option = "rtt"): Rtt[] {
  const parts = raw.includes(";") || raw.includes("lognormal:") ? raw.split(";") : raw.split(",");
  return parts.map((p) => parseRtt(p, option));
}

export const rttLabel = (rtt: Rtt): string => (rtt.kind === "fixed" ? `${rtt.ms} ms` : `lognormal ${rtt.median} ms, σ ${rtt.sigma}`);

/**
 * One round trip in ms. Self-contained (no imports, no closures) because its source is copied into
 * the generated isolate wrappers. `uniform` gives values in [0, 1).
 */
export function sampleRtt(rtt: { kind: string; ms?: number; median?: number; sigma?: number }, uniform: () => number): number {
  if (rtt.kind !== "lognormal") return rtt.ms ?? 0;
  // Box-Muller: a standard normal from two uniforms (1 - u keeps the log away from 0).
  const z = Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  return (rtt.median ?? 0) * Math.exp((rtt.sigma ?? 0) * z);
}

/** sampleRtt's source as a JavaScript function declaration (types stripped by Node's loader already). */
export const sampleRttSource = (): string => sampleRtt.toString();
