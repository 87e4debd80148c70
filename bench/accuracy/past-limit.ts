// Clients past their limit (issue 44): paced at 150% and 200% of the limit, and 400 requests in
// flight at once. What they must see: 0 over, 0 early, and their 429s within two round trips
// (a refusal waits only for lent units that could admit it: src/core/limiter/lease-desk.ts).
import { commonProblems, type Scenario } from "./scenario.ts";
import { inFlight, paced, randomIsolate, roundRobin } from "./traffic.ts";

/** How long the paced clients run, in intervals: past the first window's filling, into the next. */
const PACED_INTERVALS = 1.25;
/** Requests at once in the in-flight scenario. */
export const IN_FLIGHT = 400;
/** What a refusal may add to its round trips: the client's hop and the gateway's own work. */
const REFUSAL_SLACK_MS = 10;

/** The 429 p95 against two round trips (past 110% of the limit every refusal should meet it). */
function refusalProblems(p95: number | undefined, roundTripMs: number): string[] {
  const bound = 2 * roundTripMs + REFUSAL_SLACK_MS;
  return p95 !== undefined && p95 > bound ? [`429 p95 ${p95} ms over ${bound} ms (two round trips)`] : [];
}

function pacedPast(share: number): Scenario {
  const percent = Math.round(share * 100);
  return {
    name: `past-${percent}`,
    does: `paced at ${percent}% of the limit for ${PACED_INTERVALS} intervals, round robin`,
    expects: "0 over, 0 early, 429 p95 within two round trips",
    async run({ client, cluster, limit }) {
      const k = cluster.isolates;
      const perWindow = share * limit.count;
      await paced(client, roundRobin(k), Math.ceil(PACED_INTERVALS * perWindow), limit.intervalMs / perWindow);
      return { timeline: { limit, observations: client.observations, isolates: k }, notes: [] };
    },
    problems(f, _limit, _isolates, context) {
      return [...commonProblems(f), ...refusalProblems(f.refusalP95Ms, context?.roundTripMs ?? 0)];
    },
  };
}

export const past150 = pacedPast(1.5);
export const past200 = pacedPast(2);

export const inFlight400: Scenario = {
  name: "in-flight-400",
  does: `4 x count requests, ${IN_FLIGHT} in flight, each to a random isolate`,
  expects: "exactly count admitted in the window, 0 over, 429 p95 within two round trips",
  async run({ client, cluster, limit, random }) {
    const k = cluster.isolates;
    await inFlight(client, randomIsolate(k, random), 4 * limit.count, IN_FLIGHT);
    return { timeline: { limit, observations: client.observations, isolates: k }, notes: [] };
  },
  problems(f, limit, _isolates, context) {
    const problems = [...commonProblems(f), ...refusalProblems(f.refusalP95Ms, context?.roundTripMs ?? 0)];
    if (f.admittedInFirstWindow !== limit.count) problems.push(`${f.admittedInFirstWindow} of ${limit.count} admitted in the window`);
    return problems;
  },
};

export const PAST_LIMIT_SCENARIOS = [past150, past200, inFlight400] as const;
