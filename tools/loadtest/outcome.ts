// Pure: the one vocabulary every judgement of the load test is given in. The terminal summary, the
// JSON results and the HTML report all print these words and nothing else, each with its reason,
// so an outcome has one name wherever it is read (docs/loadtest.md, "Outcomes").

/** Every outcome, in the order legends and tallies list them. */
export const OUTCOMES = ["held", "failed", "error", "unjudged", "skipped"] as const;
export type Ruling = (typeof OUTCOMES)[number];

/** What each word means, for the legends of the summary and the report. */
export const OUTCOME_MEANINGS: Readonly<Record<Ruling, string>> = {
  held: "judged, and the gateway kept the limit (or its Retry-After promise)",
  failed: "judged, and the gateway broke it",
  unjudged: "this run could not decide it; the reason says what was missing",
  skipped: "not tested, by design; the reason says why",
  error: "answers that are no decision of the limit (network errors, 5xx, a missing or foreign RateLimit header)",
};

export interface Judgement {
  readonly outcome: Ruling;
  /** What was measured, in the rule's own terms: "at most 15 admitted in any 10 s window, limit 15". */
  readonly finding: string;
  /** Why the finding gets this word, when the finding alone does not say it. */
  readonly why?: string;
}

/** The outcome's word and its reason, for a table cell and what goes beside it. */
export function describeOutcome(j: Judgement): { readonly word: Ruling; readonly reason: string } {
  return { word: j.outcome, reason: j.why ? `${j.finding}, because ${j.why}` : j.finding };
}

/** One plain line: "at most 15 admitted in any 10 s window, limit 15: held". */
export function verdictLine(j: Judgement): string {
  return `${j.finding}: ${j.outcome}` + (j.why ? `, because ${j.why}` : "");
}

/** How many of each outcome, in vocabulary order, leaving out those that did not occur: "2 held, 1 unjudged". */
export function tally(outcomes: readonly Ruling[]): string {
  return OUTCOMES.map((o) => [o, outcomes.filter((x) => x === o).length] as const)
    .filter(([, n]) => n > 0)
    .map(([o, n]) => `${n} ${o}`)
    .join(", ");
}

/** What an unjudged row does to the run: nothing (the default), or fail it (--unjudged fail, for CI). */
export const UNJUDGED_POLICIES = ["pass", "fail"] as const;
export type UnjudgedPolicy = (typeof UNJUDGED_POLICIES)[number];

/**
 * Whether an outcome makes the run exit 1: the gateway broke a check, or answered with errors; and
 * under `--unjudged fail`, a row the run could not judge (it proved too little).
 */
export const failsRun = (o: Ruling, unjudged: UnjudgedPolicy = "pass"): boolean => o === "failed" || o === "error" || (unjudged === "fail" && o === "unjudged");
