// The four traffic scenarios without faults: one client spread over K isolates.
import { commonProblems, type Scenario } from "./scenario.ts";
import { inFlight, oneAtATime, paced, randomIsolate, retryLast429, roundRobin } from "./traffic.ts";

/** Requests in flight at once in the concurrent scenario. */
export const CONCURRENCY = 24;
/** The steady client's share of the limit, and how many intervals it runs. */
const STEADY_SHARE = 0.9;
const STEADY_INTERVALS = 3;

/** Requests per isolate before the warm-many scenario turns to one: 2, fewer when 2K would eat half the limit. */
export const warmPerIsolate = (count: number, isolates: number): number => (2 * isolates * 2 <= count ? 2 : Math.max(1, Math.floor(count / (2 * isolates))));

export const sequential: Scenario = {
  name: "sequential",
  does: "one request at a time, round robin over the isolates, until a 429; then its retry at Retry-After",
  expects: "exactly count admitted, the first 429 at request count+1, its Retry-After honoured",
  async run({ client, cluster, limit }) {
    const k = cluster.isolates;
    const denied = await oneAtATime(client, roundRobin(k), 3 * limit.count);
    const n = client.observations.length;
    await retryLast429(client, denied, n % k, (n + 1) % k);
    return { timeline: { limit, observations: client.observations, isolates: k }, notes: [] };
  },
  problems(f, limit) {
    const problems = commonProblems(f);
    if (f.first429At === undefined) problems.push("never refused");
    else if (f.first429At !== limit.count + 1)
      problems.push(`first 429 at request ${f.first429At} of ${limit.count} (Retry-After ${f.first429RetryAfterMs! / 1000} s)`);
    return problems;
  },
};

export const concurrent: Scenario = {
  name: "concurrent",
  does: `2 x count requests, ${CONCURRENCY} in flight, each to a random isolate`,
  expects: "exactly count admitted in the window, 0 over, 0 early",
  async run({ client, cluster, limit, random }) {
    const k = cluster.isolates;
    const pick = randomIsolate(k, random);
    await inFlight(client, pick, 2 * limit.count, CONCURRENCY);
    await retryLast429(client, undefined, pick(0), pick(0));
    return { timeline: { limit, observations: client.observations, isolates: k }, notes: [] };
  },
  problems(f, limit) {
    const problems = commonProblems(f);
    if (f.admittedInFirstWindow !== limit.count) problems.push(`${f.admittedInFirstWindow} of ${limit.count} admitted in the window`);
    return problems;
  },
};

export const steady: Scenario = {
  name: "steady",
  does: `paced at ${STEADY_SHARE * 100}% of the limit for ${STEADY_INTERVALS} intervals, round robin`,
  expects: "every request admitted: 0 early 429s",
  async run({ client, cluster, limit }) {
    const k = cluster.isolates;
    const perWindow = STEADY_SHARE * limit.count;
    await paced(client, roundRobin(k), Math.ceil(STEADY_INTERVALS * perWindow), limit.intervalMs / perWindow);
    return { timeline: { limit, observations: client.observations, isolates: k }, notes: [] };
  },
  problems(f) {
    const problems = commonProblems(f);
    if (f.denied > f.early429s) problems.push(`${f.denied} 429(s) in all, ${f.early429s} of them certainly early`);
    return problems;
  },
};

export const warmMany: Scenario = {
  name: "warm-many",
  does: "each isolate gets two requests (one when 4K > count), then one isolate the rest until a 429",
  expects: "at least 99% of count admitted within the window",
  async run({ client, cluster, limit }) {
    const k = cluster.isolates;
    const warm = warmPerIsolate(limit.count, k);
    await oneAtATime(client, roundRobin(k), warm * k);
    const denied = await oneAtATime(client, () => 0, 2 * limit.count);
    await retryLast429(client, denied, 0, k > 1 ? 1 : 0);
    return { timeline: { limit, observations: client.observations, isolates: k }, notes: [`${warm} request(s) per isolate first`] };
  },
  problems(f, limit) {
    const problems = commonProblems(f, { early: false });
    const floor = Math.ceil(0.99 * limit.count);
    if (f.admittedInFirstWindow < floor)
      problems.push(`${f.admittedInFirstWindow} of ${limit.count} admitted in the window (at least ${floor} expected; ${f.early429s} early 429s)`);
    return problems;
  },
};

export const BASIC_SCENARIOS = [sequential, concurrent, steady, warmMany] as const;
