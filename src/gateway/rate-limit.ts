import { counterAddress } from "../core/limiter/index.ts";
import type { Classifier } from "../core/rules/classify.ts";
import { describeMatcher } from "../core/rules/match.ts";
import type { Identity } from "../core/rules/request-facts.ts";
import { telemetryCounter } from "./settings.ts";
import { CounterUnavailable, type AttributedVerdict } from "./counting.ts";
import { observeDecision } from "./decision-log.ts";
import { TREATMENT_WORDS } from "../core/overrides/resolve.ts";
import { identityBlocked, limiterUnavailable, quotaExceeded } from "./problem.ts";
import { ceilSeconds, policyHeader, rateLimitHeader } from "./rate-limit-headers.ts";
import type { UpstreamName } from "./routes.ts";
import type { Background } from "./execution-context.ts";
import type { RegionRuntime } from "./region-runtime.ts";

/**
 * Classifies every request against the rule table, counts it on its (region, rule, identity)
 * counter and either lets it on, answering the `RateLimit-Policy`/`RateLimit` headers its response
 * carries, or refuses it: 429 with `Retry-After` and a problem body. Rules in `shadow` mode are
 * counted and reported, never denied. Runtime overrides decide first (docs/operating.md): a blocked caller
 * gets 403, an exempt one is not counted (no headers).
 *
 * A call is a request, or a command a socket carries, counted as its HTTP twin (websocket.ts):
 * both are decided here, the same way.
 *
 * @example
 * const limit = rateLimit({ classifiers });
 * const headers = await limit(runtime, c.req.method, request, background); // throws GatewayError forbidden (403), quota-exceeded (429) or limiter-unavailable (503)
 */
export function rateLimit(options: { classifiers: Readonly<Record<UpstreamName, Classifier>> }) {
  const { classifiers } = options;
  return async (runtime: RegionRuntime, method: string, call: CountedCall, background: Background | undefined): Promise<Admitted> => {
    const { settings } = runtime;
    const { apiKey, userId, clientIp } = call;
    // Each upstream is counted by its own table (src/core/rules/tables.ts).
    const { rule, matcher, root, identity } = classifiers[call.upstream].classify({ method, path: call.path, apiKey, userId, clientIp });
    const digest = runtime.identityDigest(identity);
    // blocked > exempt > identity limit > rule override > published (src/core/overrides/resolve.ts).
    const resolving = runtime.effectiveRule(rule, { apiKey, userId, clientIp }, background);
    const effective = resolving instanceof Promise ? await resolving : resolving;
    if (effective.treatment !== "count") {
      observeDecision(runtime, background, {
        rule,
        region: settings.region,
        counter: counterAddress(settings.region, rule.id, digest).name,
        outcome: TREATMENT_WORDS[effective.treatment],
        override: effective.by,
      });
      if (effective.treatment === "block") throw identityBlocked(rule);
      return { headers: undefined, identity, digest };
    }
    const { limit } = effective;
    // The counter an address's or prefix's limit names, or the identity's own (the admin API's inspect reads the same).
    const { counter: counterOf, address: countedAt, limit: limiterLimitOf } = runtime.countedCounter(rule, digest, effective);
    const enforce = effective.mode === "enforce";
    const policy = policyHeader(rule, limit);

    const started = runtime.now();
    let verdict: AttributedVerdict;
    try {
      verdict = await runtime.count(countedAt, limiterLimitOf, { enforce, background });
    } catch (error) {
      if (!(error instanceof CounterUnavailable)) throw error;
      log({
        event: "counter_failure",
        region: settings.region,
        rule: rule.id,
        counter: telemetryCounter(settings, counterOf.name),
        error: error.message,
        failures: runtime.counterFailures,
        failMode: settings.failMode,
        decidedBy: "none",
      });
      runtime.metrics.failure(rule, background);
      throw limiterUnavailable(rule, { "ratelimit-policy": policy });
    }
    if (verdict.decidedBy === "local-fallback") {
      log({
        event: "counter_failure",
        region: settings.region,
        rule: rule.id,
        counter: telemetryCounter(settings, counterOf.name),
        error: verdict.failure,
        failures: runtime.counterFailures,
        fallbackCounters: runtime.fallbackCounters,
        failMode: settings.failMode,
        decidedBy: "local-fallback",
      });
    }

    const headers: Record<string, string> = { "ratelimit-policy": policy, ratelimit: rateLimitHeader(rule, verdict) };
    if (settings.timeScale !== 1) headers["x-tollgate-time-scale"] = String(settings.timeScale);
    // The counter object failed: this isolate's local window decided (docs/counting.md).
    if (verdict.decidedBy === "local-fallback") headers["x-tollgate-counter"] = "local-fallback";
    // One log line (denials always, admissions sampled) and the metrics: decision-log.ts.
    const outcome = verdict.allowed ? "admitted" : enforce ? "denied" : "shadow_denied";
    observeDecision(runtime, background, {
      rule,
      region: settings.region,
      counter: counterOf.name,
      limit,
      override: effective.limitBy ?? effective.modeBy,
      outcome,
      verdict,
      counterMs: verdict.decidedBy === "deny-cache" || verdict.decidedBy === "lease" ? undefined : runtime.now() - started,
    });
    if (!verdict.allowed && enforce) {
      const retryAfter = ceilSeconds(verdict.retryInMs);
      const matched = describeMatcher(matcher, root);
      throw quotaExceeded({ rule, matched, identity: identity.kind, limit, region: settings.region, retryAfter }, headers);
    }
    return { headers, identity, digest };
  };
}

/** A call let on: the headers its answer carries (none when exempt), and whom it was counted for. */
export interface Admitted {
  readonly headers: Record<string, string> | undefined;
  /** The identity its rule counted it by (raw: never logged or stored) and that identity's digest. */
  readonly identity: Identity;
  readonly digest: string;
}

/** What counting reads of a call: its upstream, path and identity headers (a GatewayRequest is one). */
export interface CountedCall {
  readonly upstream: UpstreamName;
  /** Canonical path, as rules match it. */
  readonly path: string;
  readonly apiKey: string | null;
  readonly userId: string | null;
  readonly clientIp: string;
}

/** Structured log line. Counter names carry hashed identities only; never log raw headers. */
function log(fields: Record<string, unknown>): void {
  console.log(JSON.stringify(fields));
}
