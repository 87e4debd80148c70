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
import { limiterUnavailable, quotaExceeded } from "./problem.ts";
import { ceilSeconds, policyHeader, rateLimitHeader } from "./rate-limit-headers.ts";
import type { UpstreamName } from "./routes.ts";
import type { GatewayEnv } from "./types.ts";

/**
 * Classifies every request against the rule table, counts it on its (region, rule, identity)
 * counter and either lets it on with `RateLimit-Policy`/`RateLimit` headers or answers 429 with
 * `Retry-After` and a problem body. Rules in `shadow` mode are counted and reported, never denied.
 *
 * @example
 * app.use("*", requestReading({ classifiers }), rateLimit({ classifiers }));
 */
export function rateLimit(options: { classifiers: Readonly<Record<UpstreamName, Classifier>> }) {
  const { classifiers } = options;
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const config = gatewayConfig(c.env);
    // Each upstream is counted by its own table (src/rules/tables.ts).
    const { rule, matcher, root, identity } = classifiers[c.var.upstream].classify({
      method: c.req.method,
      path: c.var.path,
      apiKey: c.var.apiKey,
      userId: c.var.userId,
      clientIp: clientIpKey(c.req.header("cf-connecting-ip")),
    });
    const published = rule.limits[config.region];
    const address = counterAddress(config.region, rule.id, await identityDigest(identity, config.hmacSecret));
    const enforce = rule.mode === "enforce";
    const policy = policyHeader(rule, published);
    const logFields = { region: config.region, rule: rule.id, counter: address.name };

    let counted: Counted;
    try {
      counted = await count(c.env, {
        jurisdiction: config.jurisdiction,
        address,
        limit: limiterLimit(published, config.timeScale),
        timeoutMs: config.limiterTimeoutMs,
        cacheDenials: enforce,
        algorithm: config.algorithm,
        failMode: config.failMode,
      });
    } catch (error) {
      if (!(error instanceof CounterUnavailable)) throw error;
      log({ event: "counter_failure", ...logFields, error: error.message, failures: counterFailures(), failMode: config.failMode, decidedBy: "none" });
      throw new HTTPException(503, { res: limiterUnavailable(rule, { "ratelimit-policy": policy }) });
    }
    if (counted.decidedBy === "local-fallback") {
      log({ event: "counter_failure", ...logFields, error: counted.failure, failures: counterFailures(), failMode: config.failMode, decidedBy: "local-fallback" });
    }

    const headers: Record<string, string> = { "ratelimit-policy": policy, ratelimit: rateLimitHeader(rule, counted) };
    if (config.timeScale !== 1) headers["x-tollgate-time-scale"] = String(config.timeScale);
    // The counter object failed: this isolate's local window decided (README, "Counting").
    if (counted.decidedBy === "local-fallback") headers["x-tollgate-counter"] = "local-fallback";
    if (!counted.allowed) {
      const retryAfter = ceilSeconds(counted.retryInMs);
      // Denials answered by the deny cache are not logged: a flood would otherwise cost a log line
      // per request. The object's first denial per retry period is.
      if (counted.decidedBy !== "deny-cache") {
        log({ event: enforce ? "denied" : "shadow_denied", ...logFields, retryAfter, decidedBy: counted.decidedBy });
      }
      if (enforce) {
        const matched = describeMatcher(matcher, root);
        throw new HTTPException(429, { res: quotaExceeded({ rule, matched, identity: identity.kind, limit: published, region: config.region, retryAfter }, headers) });
      }
    }
    await next();
    for (const [header, value] of Object.entries(headers)) c.res.headers.set(header, value);
  });
}

/** The limiter's limit for a published one. TIME_SCALE (development only) shrinks every window; headers still speak real seconds. */
function limiterLimit(published: PublishedLimit, timeScale: number): Limit {
  return { count: published.count, intervalMs: Math.max(1, Math.round((published.interval * 1000) / timeScale)) };
}

/** Structured log line. Counter names carry hashed identities only; never log raw headers. */
function log(fields: Record<string, unknown>): void {
  console.log(JSON.stringify(fields));
}
