import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import type { Env } from "../../../src/env.ts";
import { createWorker } from "../../../src/worker.ts";
import type { Clock } from "../../../src/gateway/clock.ts";
import type { CounterAnswer } from "../../../src/core/limiter/index.ts";
import type { HitBatch } from "../../../src/durable-objects/counter-object.ts";
import type { Classifier } from "../../../src/core/rules/classify.ts";

/**
 * The runtime's clock, except that work after a response waits for no timer: a lease is given
 * back as soon as the response is out (lease.ts), so waiting on a request's execution context
 * never waits for a lease's end. Tests of leases across isolates drive their own clock
 * (isolates.test.ts).
 */
export const giveBackAtOnce: Clock = {
  now: () => Date.now(),
  sleep: (ms, purpose) => (purpose === "background" ? Promise.resolve() : new Promise((wake) => setTimeout(wake, ms))),
};

/**
 * The gateway app with some bindings replaced (failing upstreams, recording namespaces...). The
 * returned function takes a path (sent to https://gateway.test) or a whole URL (another host).
 */
export function gatewayWith(overrides: Partial<Env>, classifier?: Classifier, clock: Clock = giveBackAtOnce) {
  // A test's clock that does not say how to wait gives leases back at once too.
  const timed: Clock = clock.sleep ? clock : { now: () => clock.now(), sleep: giveBackAtOnce.sleep! };
  const app = createWorker({ ...(classifier && { classifier }), clock: timed });
  const testEnv = { ...env, ...overrides } as Env;
  return async (path: string, init: RequestInit = {}) => {
    const ctx = createExecutionContext();
    const url = /^https?:\/\//.test(path) ? path : `https://gateway.test${path}`;
    const res = await app.fetch(new Request(url, init), testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}

/** An upstream that records what reached it and answers through the real echo upstream. */
export function recordingUpstream() {
  const seen: Request[] = [];
  const fetcher = {
    fetch: (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      seen.push(request.clone());
      return env.HOSTED_API!.fetch(request);
    },
  } as Fetcher;
  return { seen, fetcher };
}

/**
 * The three upstream bindings, each answering 200 "ok" without forwarding, recording what reached
 * it: `seen` the requests, `reached()` them as "<upstream> <path>".
 */
export function recordingUpstreams() {
  const seen: { upstream: string; request: Request }[] = [];
  const answer = (upstream: string) =>
    ({
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => (seen.push({ upstream, request: new Request(input, init) }), new Response("ok")),
    }) as Fetcher;
  const reached = () => seen.map(({ upstream, request }) => `${upstream} ${new URL(request.url).pathname}`);
  return { seen, reached, bindings: { HOSTED_API: answer("hosted-api"), CONTROL_PLANE: answer("control-plane"), AGENT_SERVER: answer("agent-server") } };
}

/**
 * A COUNTERS namespace that records jurisdictions, names and calls, then uses the real one, fails,
 * hangs, or (`allow`) admits every call without counting it, for tests about which counter a
 * request meets rather than how it is counted. `failFirst` fails that many calls, then behaves.
 * `overloaded` is the real object that answers "overloaded" to a call made while another is in
 * flight, as a Durable Object past its capacity does.
 */
export function recordingLimiter(behaviour: "real" | "fail" | "hang" | "allow" | "overloaded" = "real", failFirst = 0) {
  const calls = {
    jurisdictions: [] as string[],
    names: [] as string[],
    keys: [] as string[],
    hits: 0,
    recorded: [] as number[][],
    batches: [] as number[],
    leases: [] as number[],
    maxInFlight: 0,
  };
  let inFlight = 0;
  const real = env.COUNTERS;
  const namespace = {
    jurisdiction(j: string) {
      calls.jurisdictions.push(j);
      return namespace;
    },
    getByName(name: string) {
      calls.names.push(name);
      const stub = real.getByName(name);
      return {
        async decide(batches: HitBatch[]): Promise<CounterAnswer[]> {
          calls.hits++;
          for (const batch of batches) {
            calls.keys.push(batch.key ?? "");
            calls.batches.push(batch.hits);
            calls.recorded.push((batch.recorded ?? []).flatMap((report) => report.agesMs));
          }
          if (calls.hits <= failFirst || behaviour === "fail") throw new Error("object exploded");
          if (behaviour === "hang") return new Promise(() => {});
          if (behaviour === "allow") {
            return batches.map(({ limit: { count }, hits }) => ({
              verdicts: Array.from({ length: hits }, () => ({ allowed: true, limit: count, remaining: count, resetInMs: 0, retryInMs: 0 })),
            }));
          }
          if (behaviour === "overloaded" && inFlight > 0) throw new Error("Durable Object is overloaded. Too many requests queued.");
          inFlight++;
          calls.maxInFlight = Math.max(calls.maxInFlight, inFlight);
          try {
            const answers = await stub.decide(batches);
            for (const answer of answers) if (answer.lease) calls.leases.push(answer.lease.units);
            return answers;
          } finally {
            inFlight--;
          }
        },
      };
    },
  };
  return { calls, namespace: namespace as unknown as Env["COUNTERS"] };
}
