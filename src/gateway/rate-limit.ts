import { createMiddleware } from "hono/factory";
import { HTTPException } from "hono/http-exception";
import { identityDigest, counterName } from "../rules/identity.ts";
import type { Classifier } from "../rules/classify.ts";
import { clientIpKey } from "../rules/client-ip.ts";
import { describeMatcher } from "../rules/match.ts";
import { gatewayConfig } from "./config.ts";
import { count, counterFailures } from "./counter.ts";
import { problemResponse, QUOTA_EXCEEDED } from "./problem.ts";
import { ceilSeconds, policyHeader, rateLimitHeader } from "./rate-limit-headers.ts";
import type { GatewayEnv } from "./types.ts";

const IDENTITY_NOUN = { "api-key": "API key", "user-ip": "user and client IP", ip: "client IP" } as const;

/**
 * Classifies every request against the rule table, counts it on its (region, rule, identity)
 * counter and either lets it on with `RateLimit-Policy`/`RateLimit` headers or answers 429 with
 * `Retry-After` and a problem body. Rules in `shadow` mode are counted and reported, never denied.
 *
 * @example
 * app.use("*", requestReading({ table }), rateLimit({ classifier: hostedApiClassifier }));
 */
export function rateLimit(options: { classifier: Classifier }) {
  const { classifier } = options;
  return createMiddleware<GatewayEnv>(async (c, next) => {
    const config = gatewayConfig(c.env);
    const ip = clientIpKey(c.req.header("cf-connecting-ip"));
    const { rule, matcher, root, identity } = classifier.classify({
      method: c.req.method,
      path: c.var.path,
      apiKey: c.var.apiKey,
      userId: c.var.userId,
      clientIp: ip,
    });
    const limit = rule.limits[config.region];
    const digest = await identityDigest(identity, config.hmacSecret);
    const name = counterName(config.region, rule.id, digest);
    const enforce = rule.mode === "enforce";

    const result = await count(c.env, {
      jurisdiction: config.jurisdiction,
      name,
      // TIME_SCALE (development only) shrinks every window; headers then speak real seconds.
      limit: { count: limit.count, intervalMs: Math.max(1, Math.round((limit.interval * 1000) / config.timeScale)) },
      timeoutMs: config.limiterTimeoutMs,
      cacheDenials: enforce,
      algorithm: config.algorithm,
      failMode: config.failMode,
    });
    const policy = policyHeader(rule, limit);

    if (result.source === "failed" || result.source === "fallback") {
      log({ event: "counter_failure", region: config.region, rule: rule.id, counter: name, error: result.error, failures: counterFailures(), failMode: config.failMode, decidedBy: result.source === "fallback" ? "local-fallback" : "none" });
    }
    if (result.source === "failed") {
      throw new HTTPException(503, {
        res: problemResponse({
          title: "Rate limiter unavailable",
          status: 503,
          detail: `The rate limiter for rule "${rule.name}" did not answer, and this gateway fails closed. Retry shortly.`,
        }, { "retry-after": "1", "ratelimit-policy": policy }),
      });
    }

    const { verdict } = result;
    const headers: Record<string, string> = { "ratelimit-policy": policy, ratelimit: rateLimitHeader(rule, verdict) };
    if (config.timeScale !== 1) headers["x-tollgate-time-scale"] = String(config.timeScale);
    // The counter object failed: this isolate's local window decided (README, "Counting").
    if (result.source === "fallback") headers["x-tollgate-counter"] = "local-fallback";
    if (!verdict.allowed) {
      const retryAfter = ceilSeconds(verdict.retryInMs);
      // Denials answered by the deny cache are not logged: a flood would otherwise cost a log line
      // per request. The object's first denial per retry period is.
      if (result.source !== "deny-cache") {
        log({ event: enforce ? "denied" : "shadow_denied", region: config.region, rule: rule.id, counter: name, retryAfter, decidedBy: result.source });
      }
      if (enforce) {
        throw new HTTPException(429, {
          res: problemResponse({
            type: QUOTA_EXCEEDED,
            title: "Request quota exceeded",
            status: 429,
            detail:
              `Rate limit "${rule.name}" (row ${rule.id}, ${rule.category}; matched ${describeMatcher(matcher, root)}) allows ` +
              `${limit.count} requests per ${limit.interval} seconds per ${IDENTITY_NOUN[identity.kind]} in region ${config.region}. ` +
              `Retry after ${retryAfter} seconds.`,
            "violated-policies": [rule.name],
          }, { ...headers, "retry-after": String(retryAfter) }),
        });
      }
    }
    await next();
    for (const [header, value] of Object.entries(headers)) c.res.headers.set(header, value);
  });
}

/** Structured log line. Counter names carry hashed identities only; never log raw headers. */
function log(fields: Record<string, unknown>): void {
  console.log(JSON.stringify(fields));
}
