// Pure: the live display's figures, computed from the run's own counts so that the rate it prints
// is the one a reader gets from the counts beside it (answered / elapsed), never an estimate of
// the progress bar library's (which times its own redraws, not the requests).
import type { Progress } from "./runner.ts";

/** Requests answered so far: admitted + denied + errors (open requests are not answered yet). */
export const answered = (p: Pick<Progress, "admitted" | "denied" | "errors">): number => p.admitted + p.denied + p.errors;

/** Answers per second since the traffic started: the counts shown divided by the time shown. */
export function answeredRate(p: Pick<Progress, "admitted" | "denied" | "errors" | "elapsedMs">): number {
  // Under a tenth of a second no rate is meaningful: one early answer would read as dozens per second.
  return p.elapsedMs < 100 ? 0 : answered(p) / (p.elapsedMs / 1000);
}

/** Rates under 10/s keep one decimal, so a slow rule's "0.5/s" does not print as "1/s" or "0/s". */
export const formatRate = (x: number): string => (x < 10 ? x.toFixed(1).replace(/\.0$/, "") : Math.round(x).toString());

/** The whole run's live line: time, answered rate, open requests, the counts, rules finished. */
export function runLine(p: Progress, totalS: number): string {
  const elapsed = p.elapsedMs;
  const finished = p.rules.filter((r) => elapsed >= r.endMs).length;
  // Answered is admitted + denied + err; the rate is that sum over the seconds shown, so the two agree.
  return (
    `${Math.floor(elapsed / 1000)}/${totalS} s ${formatRate(answeredRate(p))}/s answered, ${p.inFlight} open; ` +
    `admitted ${p.admitted} denied ${p.denied} err ${p.errors}; ${finished}/${p.rules.length} rules done`
  );
}
