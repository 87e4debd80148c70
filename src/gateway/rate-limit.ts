import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { counterAddress, type Limit } from "../limiter/index.ts";
import { identityDigest } from "../rules/identity.ts";
import type { Classifier } from "../rules/classify.ts";
import { clientIpKey } from "../rules/client-ip.ts";
import { describeMatcher } from "../rules/match.ts";
import type { PublishedLimit } from "../rules/schema.ts";
import { gatewayConfig } from "./config.ts";
import { count, counterFailures, CounterUnavailable, type Counted } from "./counter.ts";
import { observeDecision } from "./decision-log.ts";
import { countFailure } from "./metrics.ts";
import { countedAddress, effectiveRule } from "./overrides.ts";
import { identityBlocked, limiterUnavailable, quotaExceeded } from "./problem.ts";
import { ceilSeconds, policyHeader, rateLimitHeader } from "./rate-limit-headers.ts";
import type { UpstreamName } from "./routes.ts";
import type { GatewayEnv } from "./types.ts";

/**
 * Classifies every request against the rule table, counts it on its (region, rule, identity)
 * counter and either lets it on with `RateLimit-Policy`/`RateLimit` headers or answers 429 with
 * `Retry-After` and a problem body. Rules in `shadow` mode are counted and reported, never denied.
 * Runtime overrides decide first (README, "Operating the gateway"): a blocked caller gets 403, an
 * exempt one is not counted, and the limit and mode are the effective ones.
 *
 * @example
 * app.use("*", requestReading({ classifiers }), rateLimit({ classifiers }));
 */
export function rateLimit(options: { classifiers: Readonly<Record<UpstreamName, Classifier>> }) {
  const { classifiers } = options;
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const config = gatewayConfig(c.env);
    const clientIp = clientIpKey(c.req.header("cf-connecting-ip"));
    // Each upstream is counted by its own table (src/rules/tables.ts).
    const { rule, matcher, root, identity } = classifiers[c.var.upstream].classify({
      method: c.req.method,
      path: c.var.path,
      apiKey: c.var.apiKey,
      userId: c.var.userId,
      clientIp,
    });
    const address = counterAddress(config.region, rule.id, await identityDigest(identity, config.hmacSecret));
    const logFields = { region: config.region, rule: rule.id, counter: address.name };
    // blocked > exempt > identity limit > rule override > published (src/overrides/resolve.ts).
    const effective = await effectiveRule(c.env, config, rule, { apiKey: c.var.apiKey, userId: c.var.userId, clientIp });
    if (effective.verdict !== "count") {
      observeDecision(c, { rule, region: config.region, counter: address.name, outcome: effective.verdict === "block" ? "blocked" : "exempt", override: effective.by.id });
      if (effective.verdict === "block") throw new HTTPException(403, { res: identityBlocked(rule) });
      return next();
    }
    const { limit } = effective;
    const enforce = effective.mode === "enforce";
    const policy = policyHeader(rule, limit);
    const decision = { rule, region: config.region, counter: address.name, limit, override: (effective.limitBy ?? effective.modeBy)?.id };

    const started = Date.now();
    let counted: Counted;
    try {
      counted = await count(c.env, {
        jurisdiction: config.jurisdiction,
        address: countedAddress(address, limit, rule.limits[config.region]),
        limit: limiterLimit(limit, config.timeScale),
        timeoutMs: config.limiterTimeoutMs,
        cacheDenials: enforce,
        algorithm: config.algorithm,
        failMode: config.failMode,
      });
    } catch (error) {
      if (!(error instanceof CounterUnavailable)) throw error;
      log({ event: "counter_failure", ...logFields, error: error.message, failures: counterFailures(), failMode: config.failMode, decidedBy: "none" });
      countFailure(c, rule);
      throw new HTTPException(503, { res: limiterUnavailable(rule, { "ratelimit-policy": policy }) });
    }
    if (counted.decidedBy === "local-fallback") {
      log({ event: "counter_failure", ...logFields, error: counted.failure, failures: counterFailures(), failMode: config.failMode, decidedBy: "local-fallback" });
    }

    const headers: Record<string, string> = { "ratelimit-policy": policy, ratelimit: rateLimitHeader(rule, counted) };
    if (config.timeScale !== 1) headers["x-tollgate-time-scale"] = String(config.timeScale);
    // The counter object failed: this isolate's local window decided (README, "Counting").
    if (counted.decidedBy === "local-fallback") headers["x-tollgate-counter"] = "local-fallback";
    // One log line (denials always, admissions sampled) and the metrics: decision-log.ts.
    const outcome = counted.allowed ? "admitted" : enforce ? "denied" : "shadow_denied";
    observeDecision(c, { ...decision, outcome, counted, counterMs: counted.decidedBy === "deny-cache" || counted.decidedBy === "lease" ? undefined : Date.now() - started });
    if (!counted.allowed && enforce) {
      const retryAfter = ceilSeconds(counted.retryInMs);
      const matched = describeMatcher(matcher, root);
      throw new HTTPException(429, { res: quotaExceeded({ rule, matched, identity: identity.kind, limit, region: config.region, retryAfter }, headers) });
    }
    await next();
    for (const [header, value] of Object.entries(headers)) c.res.headers.set(header, value);
  });
}

/** The limiter's limit for a published one. TIME_SCALE (development only) shrinks every window; headers still speak real seconds. */
export function limiterLimit(published: PublishedLimit, timeScale: number): Limit {
  return { count: published.count, intervalMs: Math.max(1, Math.round((published.interval * 1000) / timeScale)) };
}

/** Structured log line. Counter names carry hashed identities only; never log raw headers. */
function log(fields: Record<string, unknown>): void {
  console.log(JSON.stringify(fields));
}
