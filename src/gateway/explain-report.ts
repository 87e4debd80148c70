// Pure: what `npm run explain` prints and what `POST /_tollgate/explain` answers, from one place,
// so the command and the admin API can never tell an operator two different things.
import { counterAddress } from "../core/limiter/index.ts";
import { clientIpKey } from "../core/rules/client-ip.ts";
import { explainRequest } from "../core/rules/explain.ts";
import { identityDigest } from "../core/rules/identity.ts";
import type { Rule, RuleTable } from "../core/rules/load.ts";
import { describeMatcher } from "../core/rules/match.ts";
import { readRequest } from "../core/rules/read-request.ts";
import type { RequestFacts } from "../core/rules/request-facts.ts";
import { REGIONS, type Region } from "../core/rules/schema.ts";
import { forwardPath, localRoute, scopedRoute, type UpstreamName } from "./routes.ts";

const IDENTITY_MISSING = {
  "api-key": "the request has no x-api-key header",
  "user-ip": "the request has no x-user-id header",
  ip: "",
} as const;

const IDENTITY_SOURCE = {
  "api-key": "the x-api-key header",
  "user-ip": "the x-user-id header together with the client IP",
  ip: "the client IP",
} as const;

/** How the table ranks its rows, e.g. "specific rows in table order, then the defaults 25 and 26, then the catch-all 29". */
function precedenceOrder(table: RuleTable): string {
  const ids = (tier: string) => table.rules.filter((r) => r.tier === tier).map((r) => r.id);
  const defaults = ids("default");
  const parts = [
    ...(ids("specific").length > 0 ? ["specific rows in table order"] : []),
    ...(defaults.length > 0 ? [`the default${defaults.length > 1 ? "s" : ""} ${defaults.join(" and ")}`] : []),
    `the catch-all ${ids("catch-all").join("")}`,
  ];
  return parts.join(", then ");
}

/** A request to explain, described as the command's arguments describe it. */
export interface ExplainQuestion {
  readonly method: string;
  /** The path as sent: read through npm start's mounts, or as `upstream`'s own when that is given. */
  readonly path: string;
  /** Repeated lines joined with ", ", as the Workers runtime joins them (so they are refused alike). */
  readonly headers: Headers;
  /** The client IP when no cf-connecting-ip header is given. */
  readonly ip: string;
  readonly region: Region;
  readonly upstream?: UpstreamName;
  /** IDENTITY_HMAC_SECRET: without it (the offline command given no --secret) the counter's name cannot be computed. */
  readonly secret?: string;
  readonly tables: Readonly<Record<UpstreamName, RuleTable>>;
}

export type ExplainAnswer =
  | {
      readonly ok: true;
      /** The command's text output. */
      readonly text: string;
      /** The command's `--json` output. */
      readonly json: Record<string, unknown>;
      readonly rule: Rule;
      readonly facts: RequestFacts;
    }
  | { readonly ok: false; readonly status: 400; readonly detail: string };

/**
 * The rule a request meets, why (matcher, identity, precedence), its limit in the region and the
 * hashed counter key, or the 400 the gateway would answer instead, using the gateway's own
 * modules (its reading of the request included).
 */
export async function explainReport(q: ExplainQuestion): Promise<ExplainAnswer> {
  const { region, path: asSent, headers } = q;
  // Parsed as the gateway's runtime parses the request URL (concatenated, so "//a" stays a path).
  // PATH is the upstream's own with `upstream`; otherwise it is read as npm start reads it (the
  // agent server below /agent-server, the control plane's /v2, the hosted API elsewhere).
  const sentPath = new URL(`http://gateway${asSent}`).pathname;
  // Below /deployments/<id> the agent server is read as the gateway reads it (routes.ts, scopedRoute).
  const { upstream, rawPath, forwardPrefix = "" } = scopedRoute(q.upstream ? { upstream: q.upstream, rawPath: sentPath } : localRoute(sentPath));
  const table = q.tables[upstream];
  const reading = readRequest(table, { method: q.method, rawPath, sentPath, headers });
  if (!reading.ok) return reading;

  const clientIp = clientIpKey(headers.get("cf-connecting-ip") ?? q.ip);
  const facts = { method: reading.method, path: reading.path, apiKey: reading.apiKey, userId: reading.userId, clientIp };
  const { classification, readings } = explainRequest(table, facts);
  const { rule, matcher, root, identity } = classification;
  const limit = rule.limits[region];
  const secret = q.secret;
  const counter = secret === undefined ? undefined : counterAddress(region, rule.id, identityDigest(identity, secret)).name;
  const passedOver = readings.filter((v) => v.outcome === "no-identity" || v.outcome === "outranked");

  const json = {
    request: { method: facts.method, path: reading.path, upstreamPath: forwardPath(forwardPrefix, reading.upstreamPath), clientIp, region },
    upstream,
    table: table.name,
    rule: { id: rule.id, name: rule.name, category: rule.category, tier: rule.tier, mode: rule.mode },
    matcher: describeMatcher(matcher, root),
    root,
    identity: identity.kind,
    limit: { region, count: limit.count, interval: limit.interval },
    precedence: rule.precedence + 1,
    counter: counter ?? null,
    hash: "hmac-sha256",
    passedOver: passedOver.map((v) => ({ id: v.rule.id, name: v.rule.name, outcome: v.outcome })),
  };

  const lines = [
    `${facts.method} ${reading.path}` + (reading.path !== asSent ? `   (as sent: ${asSent})` : ""),
    `  region ${region}, client IP key ${clientIp}, upstream ${upstream} (path ${forwardPath(forwardPrefix, reading.upstreamPath)}), table rules/${table.name}.json`,
    ``,
    `rule met:   row ${rule.id} "${rule.name}" (${rule.category}), ${rule.mode}`,
    `limit:      ${limit.count} requests per ${limit.interval} s in ${region}` +
      (rule.limits.us.count !== rule.limits.eu.count || rule.limits.us.interval !== rule.limits.eu.interval
        ? `   (${REGIONS.filter((r) => r !== region)
            .map((r) => `${r}: ${rule.limits[r].count}/${rule.limits[r].interval}`)
            .join(", ")})`
        : ""),
    `why:        matched ${describeMatcher(matcher, root)}; counted per ${IDENTITY_SOURCE[identity.kind]}, which is present`,
    ...(root !== "/" ? [`root:       ${root} is an alias of / (the table's aliasRoots): every anchored row counts under it too`] : []),
    `precedence: ${rule.precedence + 1} of ${table.rules.length} (${precedenceOrder(table)})`,
    `counter:    ${counter ?? "(named by the identity's HMAC under the region's IDENTITY_HMAC_SECRET: give it with --secret)"}`,
    `            (the identity hashed with HMAC-SHA-256 and the region's secret; no raw key is stored)`,
  ];
  if (passedOver.length > 0) {
    lines.push(``, `also matched the method and path:`);
    for (const v of passedOver) {
      const why = v.outcome === "no-identity" ? `not applied, ${IDENTITY_MISSING[v.rule.identity]}` : `outranked by row ${rule.id}`;
      lines.push(`  row ${String(v.rule.id).padStart(2)} "${v.rule.name}" (${describeMatcher(v.matcher!, v.root)}): ${why}`);
    }
  }
  return { ok: true, text: lines.join("\n"), json, rule, facts };
}
