import { Hono } from "hono";
import { z } from "zod";
import { toValidationErrors } from "../../http/fastapi-errors.ts";
import { GatewayError } from "../../http/gateway-error.ts";
import { ceilSeconds } from "../../gateway/runtime.ts";
import { resolve, ruleEffective, TREATMENT_WORDS } from "../../core/overrides/resolve.ts";
import { tableOf } from "../../core/overrides/request.ts";
import { requestDigests } from "../../core/overrides/subject.ts";
import { clientIpKey, UNKNOWN_CLIENT } from "../../core/rules/client-ip.ts";
import { identityDigest } from "../../core/rules/identity.ts";
import type { Identity } from "../../core/rules/request-facts.ts";
import { jsonBody } from "../body.ts";
import type { AdminDeps, AdminEnv } from "../types.ts";

/** Raw identities travel in the body, never in a URL that access logs would keep. */
const InspectSchema = z.strictObject({
  rule: z.int().positive(),
  apiKey: z.string().min(1).optional(),
  userId: z.string().min(1).optional(),
  ip: z.string().min(1).optional(),
  /** The counter's identity digest, as its name and the logs show it. */
  digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .optional(),
});

type Field = { loc: (string | number)[]; msg: string; type: string };

/**
 * `POST /_tollgate/counters/inspect` `{rule, apiKey | userId + ip | ip | digest}`: how much an
 * identity has left on a rule, without spending a request: the effective limit (overrides
 * applied), the admissions in the window, what remains, and when the window frees room. The
 * counter object reads it without recording, writing or arming anything (CounterObject.inspect).
 */
export function counterRoutes({ tables, runtime: runtimeOf }: AdminDeps) {
  return new Hono<AdminEnv>().post("/counters/inspect", async (c) => {
    const body = await jsonBody(c);
    const parsed = InspectSchema.safeParse(body);
    if (!parsed.success)
      throw new GatewayError(
        "validation",
        toValidationErrors(parsed.error.issues, "body", body).map(({ loc, msg, type }) => ({ loc: [...loc], msg, type })),
      );
    const { rule: ruleId, apiKey, userId, ip, digest: givenDigest } = parsed.data;
    const rule = tableOf(tables, ruleId)?.rules.find((r) => r.id === ruleId);
    if (!rule) throw new GatewayError("validation", [{ loc: ["body", "rule"], msg: `no rule ${ruleId} in the rule tables`, type: "value_error" }]);

    const runtime = runtimeOf(c.env);
    const { settings } = runtime;
    const clientIp = ip === undefined ? UNKNOWN_CLIENT : clientIpKey(ip);
    if (ip !== undefined && clientIp === UNKNOWN_CLIENT)
      throw new GatewayError("validation", [{ loc: ["body", "ip"], msg: `"${ip}" is not an IPv4 or IPv6 address`, type: "value_error" }]);
    const identity = identityOf(rule.identity, { apiKey, userId, clientIp: ip === undefined ? undefined : clientIp });
    if (!givenDigest && "missing" in identity) throw new GatewayError("validation", [identity.missing]);
    const digest = givenDigest ?? identityDigest(identity as Identity, settings.hmacSecret);

    const compiled = await runtime.overrides();
    const digests = requestDigests({ apiKey: apiKey ?? null, userId: userId ?? null, clientIp }, compiled.needs, settings.hmacSecret);
    // Given only a digest, it is the counter's own: for key and IP rows that is the subject's digest too.
    const byDigest = givenDigest && rule.identity !== "user-ip" ? { ...digests, [rule.identity]: givenDigest } : digests;
    const effective = resolve(compiled, rule, settings.region, byDigest, runtime.now());
    // A blocked or exempt caller's counter is still shown, under the rule's own limit.
    const counted = effective.treatment === "count" ? effective : ruleEffective(compiled, rule, settings.region, runtime.now());

    // The counter the request path counts such a request on (an address's or prefix's limit: the address's).
    const { counter, state } = await runtime.inspectCounter(rule, digest, counted);
    return c.json({
      counter: counter.name,
      rule: { id: rule.id, name: rule.name },
      treatment: TREATMENT_WORDS[effective.treatment],
      ...(effective.treatment !== "count" && { override: effective.by.id }),
      mode: counted.mode,
      limit: counted.limit,
      limitFrom: counted.limitBy?.id ?? "published",
      admissions: state.admissions,
      remaining: state.remaining,
      freesInSeconds: ceilSeconds(state.resetInMs),
      retryAfterSeconds: ceilSeconds(state.retryInMs),
      resetInMs: state.resetInMs,
      retryInMs: state.retryInMs,
      admissionAgesMs: state.ages,
      source: state.source,
    });
  });
}

/** The identity a rule counts by, from what the operator gave, or which field is missing. */
function identityOf(kind: Identity["kind"], given: { apiKey?: string; userId?: string; clientIp?: string }): Identity | { missing: Field } {
  switch (kind) {
    case "api-key":
      return given.apiKey ? { kind, apiKey: given.apiKey } : { missing: missing("apiKey", "this rule counts per API key: give apiKey (or digest)") };
    case "user-ip":
      if (!given.userId) return { missing: missing("userId", "this rule counts per user and IP: give userId and ip (or digest)") };
      if (!given.clientIp) return { missing: missing("ip", "this rule counts per user and IP: give userId and ip (or digest)") };
      return { kind, userId: given.userId, ip: given.clientIp };
    case "ip":
      return given.clientIp ? { kind, ip: given.clientIp } : { missing: missing("ip", "this rule counts per client IP: give ip (or digest)") };
  }
}

const missing = (field: string, msg: string): Field => ({ loc: ["body", field], msg, type: "missing" });
