// Pure: each row's own time scale, from what the target was measured to answer. Only time is
// scaled (the gateway's TIME_SCALE divides every interval); the published count and identity
// stay. A row's steady client offers `load` x count per window, so the scale sets its rate:
// count 6000 per 10 s at scale 0.5 is a 20 s window, 450 requests/s at load 1.5. Each row gets
// the largest scale whose rate fits its share of the measured capacity and whose window stays
// long enough to prove full against this machine's answer times, taken down to a step of a
// fixed ladder so that few gateways (one per region and scale) serve every row.

/** The scales a row may get: few distinct values, so few gateways; below 1 for the busiest rows. */
export const SCALE_LADDER: readonly number[] = [
  0.02, 0.03, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1, 1.5, 2, 3, 5, 7.5, 10, 15, 20, 30, 50, 75, 100, 150, 200, 300, 500, 750, 1000, 1500, 2000, 3000,
];

/** The gateway accepts TIME_SCALE up to this (an hour-long window in one second). */
export const MAX_TIME_SCALE = 3600;

export interface PacingOptions {
  /** Requests per second the target answered when measured (capacity.ts). */
  readonly capacity: number;
  /** The share of that capacity the whole run plans to use (the rest keeps answers quick). */
  readonly share: number;
  /** The steady client offers this multiple of count per window. */
  readonly load: number;
  /** Most requests per second one steady client sends (--rule-rate-cap). */
  readonly ruleRateCap: number;
  /** The shortest real window a row is scaled to: answers must come well within one. */
  readonly minWindowS: number;
}

export interface RowPace {
  /** The interval is divided by this on the row's gateway. */
  readonly timeScale: number;
  /** The steady client's rate as a multiple of count per window (--load, or more: see paceRow). */
  readonly load: number;
  /** The row's window in real seconds at that scale. */
  readonly windowS: number;
  /** The steady client's rate at that scale (load x count per window). */
  readonly steadyRate: number;
  /** Why this scale, in one line for the summary. */
  readonly why: string;
}

/**
 * A row held to the shortest window has rate to spare: its steady client offers up to this
 * multiple of count per window, so the count is sent sooner and slow answers still land in it.
 */
export const MAX_SPARE_LOAD = 1.8;

/** The run's planned request rate: its share of the measured capacity. */
export const runBudget = (o: Pick<PacingOptions, "capacity" | "share">): number => Math.max(1, Math.floor(o.capacity * o.share));

/**
 * The most one row's steady client may send: the client's cap, and a third of the run's budget.
 * A third, not half: the busiest rows then get windows half again as long, so a stretch of slow
 * answers (the machine is shared; the capacity was measured once, before the run) still leaves
 * time inside the window to send and answer the count; and they still run three at a time.
 */
export const ROW_SHARE_OF_BUDGET = 1 / 3;

export const rowRateCap = (o: PacingOptions): number => Math.max(1, Math.min(o.ruleRateCap, runBudget(o) * ROW_SHARE_OF_BUDGET));

/** The largest ladder step at or below `k` (the smallest step when `k` is below them all). */
export function ladderFloor(k: number): number {
  let chosen = SCALE_LADDER[0]!;
  for (const step of SCALE_LADDER) if (step <= k * (1 + 1e-9)) chosen = step;
  return chosen;
}

const fmt = (x: number) => (x >= 100 ? Math.round(x).toString() : x >= 10 ? x.toFixed(1).replace(/\.0$/, "") : x.toFixed(2).replace(/\.?0+$/, ""));

/** One row's scale: as fast as its rate and its window allow, then down to a ladder step. */
export function paceRow(row: { readonly count: number; readonly intervalS: number }, o: PacingOptions): RowPace {
  const cap = rowRateCap(o);
  // steady rate = load x count x K / interval <= cap
  const byRate = (cap * row.intervalS) / (o.load * row.count);
  // interval / K >= minWindowS
  const byWindow = row.intervalS / o.minWindowS;
  const wanted = Math.min(byRate, byWindow, MAX_TIME_SCALE);
  const timeScale = ladderFloor(wanted);
  const windowS = row.intervalS / timeScale;
  const rateBound = byRate <= byWindow;
  const load = rateBound ? o.load : Math.max(o.load, Math.min(MAX_SPARE_LOAD, (cap * windowS) / row.count));
  const steadyRate = (load * row.count) / windowS;
  const reason = rateBound
    ? `${o.load} x ${row.count} per window must fit ${fmt(cap)}/s (a third of the run's ${runBudget(o)}/s, ${Math.round(o.share * 100)} % of the ${fmt(o.capacity)}/s measured)`
    : `a ${o.minWindowS} s window at least, for answers to prove it full` + (load > o.load ? `; load ${fmt(load)}, the rate to spare` : "");
  return { timeScale, load, windowS, steadyRate, why: `scale ${timeScale} (${fmt(windowS)} s window, ${fmt(steadyRate)}/s): ${reason}` };
}

/** One scale for every row (--time-scale K, or 1 against --target): what it asks of the target. */
export function fixedPace(row: { readonly count: number; readonly intervalS: number }, timeScale: number, o: PacingOptions, because: string): RowPace {
  const windowS = row.intervalS / timeScale;
  const steadyRate = (o.load * row.count) / windowS;
  const cap = rowRateCap(o);
  const fits = steadyRate <= cap ? "" : `; it asks ${fmt(steadyRate)}/s, more than the ${fmt(cap)}/s one row may send here, so its limit may not be reached`;
  return { timeScale, load: o.load, windowS, steadyRate, why: `scale ${timeScale} (${fmt(windowS)} s window, ${fmt(steadyRate)}/s): ${because}${fits}` };
}
