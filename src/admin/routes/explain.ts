import { Hono } from "hono";
import { z } from "zod";
import { toValidationErrors } from "../../http/fastapi-errors.ts";
import { GatewayError } from "../../http/gateway-error.ts";
import { explainReport } from "../../gateway/runtime.ts";
import { UPSTREAMS } from "../../core/rules/upstreams.ts";
import { TREATMENT_WORDS, type Effective } from "../../core/overrides/resolve.ts";
import { METHODS } from "../../core/rules/schema.ts";
import { jsonBody } from "../body.ts";
import type { AdminDeps, AdminEnv } from "../types.ts";

const ExplainSchema = z.strictObject({
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(METHODS)),
  path: z.string().startsWith("/"),
  /** As `-H` lines: repeated names are joined, as the runtime joins repeated header lines. */
  headers: z.array(z.tuple([z.string().min(1), z.string()])).default([]),
  ip: z.string().default("127.0.0.1"),
  upstream: z.enum(UPSTREAMS).optional(),
});

/**
 * `POST /_tollgate/explain` `{method, path, headers: [[name, value]...], ip?, upstream?}`: what
 * `npm run explain` prints for the same request (explain-report.ts, one implementation), for this
 * gateway's region and secret, followed by what the overrides in force make of it. JSON by
 * default (`explanation` is the command's `--json`, `text` its text); `Accept: text/plain` for
 * the text alone.
 */
export function explainRoutes({ tables, runtime: runtimeOf }: AdminDeps) {
  return new Hono<AdminEnv>().post("/explain", async (c) => {
    const body = await jsonBody(c);
    const parsed = ExplainSchema.safeParse(body);
    if (!parsed.success)
      throw new GatewayError(
        "validation",
        toValidationErrors(parsed.error.issues, "body", body).map(({ loc, msg, type }) => ({ loc: [...loc], msg, type })),
      );
    const runtime = runtimeOf(c.env);
    const { settings } = runtime;
    const headers = new Headers();
    for (const [name, value] of parsed.data.headers) headers.append(name, value);
    const answer = await explainReport({ ...parsed.data, headers, region: settings.region, secret: settings.hmacSecret, tables });
    if (!answer.ok) throw new GatewayError("unprocessable", `the gateway would refuse this request with ${answer.status}: ${answer.detail}`);

    const effective = await runtime.effectiveRule(answer.rule, {
      apiKey: answer.facts.apiKey ?? null,
      userId: answer.facts.userId ?? null,
      clientIp: answer.facts.clientIp,
    });
    const now = describe(effective);
    if (/^text\/plain\b/.test(c.req.header("accept") ?? "")) return c.text(`${answer.text}\n\nnow:        ${now}\n`);
    return c.json({ explanation: answer.json, text: answer.text, effective: { ...summary(effective), description: now } });
  });
}

function summary(e: Effective) {
  if (e.treatment !== "count") return { treatment: TREATMENT_WORDS[e.treatment], override: e.by.id };
  return {
    treatment: TREATMENT_WORDS[e.treatment],
    mode: e.mode,
    limit: e.limit,
    limitFrom: e.limitBy?.id ?? "published",
    modeFrom: e.modeBy?.id ?? "published",
  };
}

/** One line on top of the command's output: the overrides in force for this request. */
function describe(e: Effective): string {
  if (e.treatment !== "count") return e.treatment === "block" ? `blocked (403) by override ${e.by.id}` : `exempt, not counted, by override ${e.by.id}`;
  const limit = `${e.limit.count} requests per ${e.limit.interval} s${e.limitBy ? ` (override ${e.limitBy.id})` : " (published)"}`;
  return `${e.mode}${e.modeBy ? ` (override ${e.modeBy.id})` : ""}, ${limit}`;
}
