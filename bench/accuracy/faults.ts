// The fault scenarios: a slow or failing counter object, an object restarted mid-window, isolates
// evicted with leases out, limits changed mid-window, skewed isolate clocks. Faults are injected
// by the wrappers around the gateway (wrapper-source.ts), never inside it.
import type { LimitChange, Outage } from "./analysis.ts";
import { clientNow, sleep, sleepUntil } from "./client.ts";
import { ADMIN_TOKEN, type Cluster } from "./cluster.ts";
import { commonProblems, type Scenario, type ScenarioContext } from "./scenario.ts";
import { inFlight, oneAtATime, randomIsolate, retryLast429, roundRobin } from "./traffic.ts";
import { counterAddress } from "../../src/core/limiter/counter-name.ts";
import { identityDigest } from "../../src/core/rules/identity.ts";
import { localSecret } from "../../tools/local-secret.ts";

/** Requests in flight during an outage (each waits out the limiter timeout when the object is slow). */
const OUTAGE_CONCURRENCY = 16;

const everyIsolate = (cluster: Cluster, path: string, body: (i: number) => unknown) =>
  Promise.all(Array.from({ length: cluster.isolates }, (_, i) => cluster.control(i, path, body(i))));

/** Healthy, then every isolate's object calls slow or failing, then healthy again. */
function outage(name: string, mode: "slow" | "fail", does: string): Scenario {
  return {
    name,
    does,
    expects: "0 over-admissions by the object; during the outage each isolate's local window at most count per window (all isolates: K x count)",
    async run({ client, cluster, limit, random, counterTimeoutMs }) {
      const k = cluster.isolates;
      await oneAtATime(client, roundRobin(k), Math.ceil(limit.count / 10));
      const slowMs = 3 * counterTimeoutMs;
      const from = clientNow();
      await everyIsolate(cluster, "/fault", () => ({ mode, ms: slowMs }));
      await inFlight(client, randomIsolate(k, random), 2 * limit.count, OUTAGE_CONCURRENCY);
      // Then more than a local window holds on one isolate, so its own bound is put to the test.
      await inFlight(client, () => 0, limit.count, OUTAGE_CONCURRENCY);
      const states = await everyIsolate(cluster, "/fault", () => ({ mode: "none" }));
      const failedCalls = states.reduce((sum, state) => sum + Number(state.failed), 0);
      // Calls still held by the slow object end within this; none is decided locally after it.
      const to = clientNow() + (mode === "slow" ? slowMs : 0);
      await sleepUntil(to);
      // Each isolate reports its local admissions with its next call to the counter: until every
      // one has, the object cannot know them (the declared cost of an outage, docs/counting.md).
      // The client's traffic reaches every isolate once, then its 429's Retry-After is judged.
      if (k > 1) for (let i = 0; i < k; i++) await client.send(i);
      await retryLast429(client, undefined, 0, k > 1 ? 1 : 0);
      const outages: Outage[] = [{ from, to }];
      const local = client.observations.filter((o) => o.localFallback).length;
      const how = mode === "slow" ? `answered after ${slowMs} ms (limiter timeout ${counterTimeoutMs} ms)` : `threw (${failedCalls} calls)`;
      return {
        timeline: { limit, outages, observations: client.observations, isolates: k },
        notes: [`object ${how} for ${Math.round(to - from)} ms; ${local} answers said x-tollgate-counter: local-fallback`],
      };
    },
    problems(f, limit, isolates) {
      const problems = commonProblems(f);
      if (f.localFullestPerIsolate > limit.count)
        problems.push(`one isolate's local window admitted ${f.localFullestPerIsolate} in a window (bound ${limit.count})`);
      if (f.outageFullestWindow > isolates * limit.count)
        problems.push(`${f.outageFullestWindow} admitted in a window during the outage (bound ${isolates * limit.count})`);
      return problems;
    },
  };
}

async function inspect(context: ScenarioContext): Promise<{ source?: string; admissions?: number }> {
  const response = await context.cluster.owner("/_tollgate/counters/inspect", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ rule: context.target.row, apiKey: context.client.apiKey }),
  });
  return (await response.json()) as { source?: string; admissions?: number };
}

export const objectRestart: Scenario = {
  name: "object-restart",
  does: "half the limit one at a time (round robin), the counter's object restarted, then on until a 429",
  expects: "0 over-admissions (a restart rebuilds the window from storage and can only over-count)",
  async run(context) {
    const { client, cluster, limit, target } = context;
    const k = cluster.isolates;
    const rr = roundRobin(k);
    await oneAtATime(client, rr, Math.floor(limit.count / 2));
    const before = await inspect(context);
    const { object } = counterAddress("us", target.row, identityDigest({ kind: "api-key", apiKey: client.apiKey }, localSecret()));
    const { error } = await cluster.restartObject(object);
    const after = await inspect(context);
    const denied = await oneAtATime(client, rr, 2 * limit.count, client.observations.length);
    const n = client.observations.length;
    await retryLast429(client, denied, n % k, (n + 1) % k);
    return {
      timeline: { limit, observations: client.observations, isolates: k },
      notes: [
        `restart (${error || "no error"}): the counter was read from ${before.source} with ${before.admissions} admissions, after it from ${after.source} with ${after.admissions}`,
      ],
    };
  },
  problems: (f) => commonProblems(f, { early: false }),
};

export const eviction: Scenario = {
  name: "eviction",
  does: "two requests per isolate, every isolate evicted with its leases out (a fresh copy of the gateway), then round robin until a 429",
  expects: "0 over-admissions (units leased out stay counted until their lease ends)",
  async run({ client, cluster, limit }) {
    const k = cluster.isolates;
    const rr = roundRobin(k);
    await oneAtATime(client, rr, Math.min(2 * k, Math.floor(limit.count / 2)));
    const before = await cluster.control(0, "/state");
    await everyIsolate(cluster, "/evict", () => ({}));
    // The next request on an evicted isolate must go to the object: its leases went with it.
    await client.send(0);
    const after = await cluster.control(0, "/state");
    const denied = await oneAtATime(client, rr, 2 * limit.count, 1);
    const n = client.observations.length;
    await retryLast429(client, denied, n % k, (n + 1) % k);
    return {
      timeline: { limit, observations: client.observations, isolates: k },
      notes: [`isolate-0 evicted: gateway copy ${before.copy} -> ${after.copy}, object calls ${before.calls} -> ${after.calls} for its next request`],
    };
  },
  problems: (f) => commonProblems(f, { early: false }),
};

async function changeLimit(context: ScenarioContext, count: number, reason: string): Promise<{ id: string; change: LimitChange }> {
  const { cluster, target, limit, overridesRefreshMs, counterTimeoutMs } = context;
  const sentAt = clientNow();
  const response = await cluster.fetch(0, "/_tollgate/overrides", {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify({ rule: target.row, limits: { us: { count, interval: target.intervalS } }, reason }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`override refused (${response.status}): ${text}`);
  const { override } = JSON.parse(text) as { override: { id: string } };
  // Every isolate applies it within OVERRIDES_REFRESH_MS of the acknowledgement, plus one read.
  const settledBy = clientNow() + overridesRefreshMs + counterTimeoutMs;
  return { id: override.id, change: { sentAt, settledBy, limit: { count, intervalMs: limit.intervalMs } } };
}

/** Ends the override and waits until no isolate can still apply it (the next scenario's key is on the same rule). */
async function endOverride(context: ScenarioContext, id: string): Promise<void> {
  const response = await context.cluster.fetch(0, `/_tollgate/overrides/${id}`, { method: "DELETE", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  await response.arrayBuffer();
  await sleep(2 * (context.overridesRefreshMs + context.counterTimeoutMs));
}

export const limitRaise: Scenario = {
  name: "limit-raise",
  does: "round robin until a 429, the rule's limit doubled through the admin API, then on until a 429",
  expects: "2 x count admitted in the window; judged against the new limit from OVERRIDES_REFRESH_MS after the change",
  async run(context) {
    const { client, cluster, limit } = context;
    const k = cluster.isolates;
    const rr = roundRobin(k);
    await oneAtATime(client, rr, 2 * limit.count);
    const { id, change } = await changeLimit(context, 2 * limit.count, "accuracy bench: raise mid-window");
    await sleepUntil(change.settledBy);
    const denied = await oneAtATime(client, rr, 3 * limit.count, client.observations.length);
    const n = client.observations.length;
    await retryLast429(client, denied, n % k, (n + 1) % k);
    await endOverride(context, id);
    return { timeline: { limit, changes: [change], observations: client.observations, isolates: k }, notes: [`limit ${limit.count} -> ${change.limit.count}`] };
  },
  problems(f, limit) {
    const problems = commonProblems(f);
    if (f.admittedInFirstWindow !== 2 * limit.count) problems.push(`${f.admittedInFirstWindow} of ${2 * limit.count} admitted in the window`);
    return problems;
  },
};

export const limitLower: Scenario = {
  name: "limit-lower",
  does: "60% of the limit round robin, the rule's limit halved through the admin API, then 20% more one at a time",
  expects: "no admission past the new limit, 0 early 429s, Retry-After honoured under the new limit",
  async run(context) {
    const { client, cluster, limit } = context;
    const k = cluster.isolates;
    const rr = roundRobin(k);
    await oneAtATime(client, rr, Math.ceil(0.6 * limit.count));
    const { id, change } = await changeLimit(context, Math.floor(limit.count / 2), "accuracy bench: lower mid-window");
    await sleepUntil(change.settledBy);
    let last: number | undefined;
    for (let n = 0; n < Math.ceil(0.2 * limit.count); n++) {
      const { index, observation } = await client.send(rr(client.observations.length));
      last = observation.status === 429 ? index : undefined;
    }
    const n = client.observations.length;
    await retryLast429(client, last, n % k, (n + 1) % k);
    await endOverride(context, id);
    return { timeline: { limit, changes: [change], observations: client.observations, isolates: k }, notes: [`limit ${limit.count} -> ${change.limit.count}`] };
  },
  problems: (f) => commonProblems(f),
};

export const SKEW_MS = 50;

export const clockSkew: Scenario = {
  name: "clock-skew",
  does: `isolate clocks +${SKEW_MS} / -${SKEW_MS} ms alternately; round robin until a 429, then its retry`,
  expects: "exactly count admitted, the first 429 at request count+1, Retry-After honoured",
  async run({ client, cluster, limit }) {
    const k = cluster.isolates;
    const states = await everyIsolate(cluster, "/skew", (i) => ({ ms: i % 2 === 0 ? SKEW_MS : -SKEW_MS }));
    try {
      const denied = await oneAtATime(client, roundRobin(k), 3 * limit.count);
      const n = client.observations.length;
      await retryLast429(client, denied, n % k, (n + 1) % k);
    } finally {
      await everyIsolate(cluster, "/skew", () => ({ ms: 0 }));
    }
    const offsets = [...new Set(states.map((s) => s.clockOffset))].join(", ");
    return { timeline: { limit, observations: client.observations, isolates: k }, notes: [`isolate clock offsets seen: ${offsets} ms`] };
  },
  problems(f, limit) {
    const problems = commonProblems(f);
    if (f.first429At !== undefined && f.first429At !== limit.count + 1) problems.push(`first 429 at request ${f.first429At} of ${limit.count}`);
    return problems;
  },
};

export const FAULT_SCENARIOS = [
  outage(
    "slow-object",
    "slow",
    "10% of the limit, then the object answers after 3x the limiter timeout: 2 x count requests to random isolates and count more to isolate-0, 16 in flight; once it answers, one request per isolate, then the last 429's retry",
  ),
  outage(
    "failing-object",
    "fail",
    "10% of the limit, then every object call throws (overloaded / network): 2 x count requests to random isolates and count more to isolate-0, 16 in flight; once it answers, one request per isolate, then the last 429's retry",
  ),
  objectRestart,
  eviction,
  limitRaise,
  limitLower,
  clockSkew,
] as const;
