// Pure: how the rounds of one (shape, target) are summarized: the median and the range, so a noisy
// machine shows as a wide range instead of hiding in an average.

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
  /** How many values (rounds) it summarizes. */
  readonly n: number;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error("median of no values");
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Median and range of the finite values; undefined when there are none. */
export function spread(values: readonly (number | undefined)[]): Spread | undefined {
  const finite = values.filter((v): v is number => v !== undefined && Number.isFinite(v));
  if (finite.length === 0) return undefined;
  return { median: median(finite), min: Math.min(...finite), max: Math.max(...finite), n: finite.length };
}

/**
 * Per-round ratios target/baseline, pairing each round with the baseline's run of the same round
 * (run back to back, so they shared the machine's state); rounds missing either side are skipped.
 */
export function pairedRatios(target: readonly (number | undefined)[], baseline: readonly (number | undefined)[]): number[] {
  const ratios: number[] = [];
  for (let round = 0; round < Math.min(target.length, baseline.length); round++) {
    const t = target[round];
    const b = baseline[round];
    if (t !== undefined && b !== undefined && Number.isFinite(t) && Number.isFinite(b) && b > 0) ratios.push(t / b);
  }
  return ratios;
}
