// What every scenario is given and gives back. A scenario drives one client (a fresh API key)
// over the cluster's K isolates and returns its timeline; analysis.ts judges it and the
// scenario's own `problems` says what its expectation makes of the figures.
import type { Figures, Limit, Timeline } from "./analysis.ts";
import type { Client } from "./client.ts";
import type { Cluster } from "./cluster.ts";
import type { Target } from "./target.ts";

export interface ScenarioContext {
  readonly cluster: Cluster;
  readonly client: Client;
  readonly target: Target;
  /** The limit the counter applies: the row's count over its interval divided by TIME_SCALE. */
  readonly limit: Limit;
  readonly timeScale: number;
  readonly overridesRefreshMs: number;
  readonly counterTimeoutMs: number;
  /** Seeded: the same spread of requests in every run. */
  readonly random: () => number;
}

export interface ScenarioRun {
  readonly timeline: Timeline;
  /** What the scenario checked of its own mechanism (an eviction, a restart), in words. */
  readonly notes: readonly string[];
}

export interface Scenario {
  readonly name: string;
  /** One line: what the client does. */
  readonly does: string;
  /** One line: what a correct gateway shows. */
  readonly expects: string;
  run(context: ScenarioContext): Promise<ScenarioRun>;
  /** Where the figures fall short of `expects`, each in a few words; empty when they meet it. */
  problems(figures: Figures, limit: Limit, isolates: number, context?: { readonly roundTripMs: number }): string[];
}

/** The judgements every scenario shares (over-admissions, early 429s, Retry-After). */
export function commonProblems(f: Figures, options: { early?: boolean } = {}): string[] {
  const problems: string[] = [];
  if (f.overAdmissions > 0) problems.push(`${f.overAdmissions} over-admission(s)`);
  if ((options.early ?? true) && f.early429s > 0) problems.push(`${f.early429s} early 429(s)`);
  if (f.retriesJudged > f.retriesHonoured) problems.push(`Retry-After not honoured (${f.retriesJudged - f.retriesHonoured} of ${f.retriesJudged})`);
  if (f.other > 0) problems.push(`${f.other} answer(s) neither admitted nor 429`);
  return problems;
}
