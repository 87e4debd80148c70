// A measuring command's verdict on its run and the exit status it ends with, one convention for the
// load test and the benches, so a script or CI reads every one of them the same way.
import { wrap } from "./report.ts";

/** What each exit status means, whichever command ran. */
export const EXIT = {
  /** Every check held (or could not be judged). */
  pass: 0,
  /** A check failed: the limit broke, or answers were not what the run demands. */
  fail: 1,
  badArguments: 2,
  /** The run could not be made (a gateway did not start, or did not answer as one). */
  couldNotRun: 3,
} as const;

export type ExitStatus = (typeof EXIT)[keyof typeof EXIT];

/** The run's verdict, printed as the report's last line. */
export type RunVerdict = "PASS" | "FAIL";

/** FAIL when any check failed. */
export const runVerdict = (failed: boolean): RunVerdict => (failed ? "FAIL" : "PASS");

export const exitStatusOf = (verdict: RunVerdict): ExitStatus => (verdict === "PASS" ? EXIT.pass : EXIT.fail);

/** What 0, 1 and 3 mean for one command, in its own terms. */
export interface ExitMeanings {
  readonly pass: string;
  readonly fail: string;
  readonly couldNotRun: string;
}

/** The usage text's closing paragraph, in the same order and words for every command, within 100 columns. */
export function exitStatusText(m: ExitMeanings): string {
  const text = `exit status: ${EXIT.pass} ${m.pass}; ${EXIT.fail} ${m.fail}; ${EXIT.badArguments} bad arguments; ${EXIT.couldNotRun} ${m.couldNotRun}`;
  return wrap(text, 100, "").join("\n");
}
