#!/usr/bin/env node
// npm run explain -- POST /runs/query -H 'x-api-key: k' [--region eu] [--ip 203.0.113.7] [--secret S] [--json]
//
// Prints the rule a request meets, why (matcher, identity, precedence), its limit in the region
// and the hashed counter key, using the same modules the gateway runs.
import { explainRequest } from "../rules/explain.ts";
import { ruleTables } from "../rules/tables.ts";
import { clientIpKey } from "../rules/client-ip.ts";
import { identityDigest } from "../rules/identity.ts";
import { counterAddress } from "../limiter/index.ts";
import { describeMatcher } from "../rules/match.ts";
import { readRequest } from "../rules/read-request.ts";
import type { RuleTable } from "../rules/load.ts";
import { REGIONS } from "../rules/schema.ts";
import { localRoute } from "../gateway/routes.ts";
import { BadArgument, refusal } from "./cli.ts";
import { HELP, parseExplainArgs, type ExplainArgs } from "./explain-args.ts";

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

function fail(error: BadArgument): never {
  console.error(refusal("explain", error));
  process.exit(2);
}

async function main(): Promise<void> {
  let args: ExplainArgs;
  try {
    args = parseExplainArgs(process.argv.slice(2));
  } catch (error) {
    if (error instanceof BadArgument) fail(error);
    throw error;
  }
  if (args.help) {
    console.log(HELP);
    return;
  }
  const { region, path: asSent } = args;

  // Repeated -H lines are joined with ", " as the Workers runtime joins repeated header lines, so
  // the gateway's own reading refuses them here exactly as it would there.
  const headers = new Headers();
  for (const [name, value] of args.headers) headers.append(name, value);

  // Parsed as the gateway's runtime parses the request URL (concatenated, so "//a" stays a path).
  // PATH is the upstream's own with --upstream; otherwise it is read as npm start reads it (the
  // agent server below /agent-server, the control plane's /v2, the hosted API elsewhere).
  const sentPath = new URL(`http://gateway${asSent}`).pathname;
  const { upstream, rawPath } = args.upstream ? { upstream: args.upstream, rawPath: sentPath } : localRoute(sentPath);
  const table = ruleTables[upstream];
  const reading = readRequest(table, { method: args.method, rawPath, headers });
  if (!reading.ok) {
    console.error(`explain: the gateway would refuse this request with ${reading.status}: ${reading.detail}`);
    process.exit(2);
  }

  const clientIp = clientIpKey(headers.get("cf-connecting-ip") ?? args.ip);
  const facts = { method: reading.method, path: reading.path, apiKey: reading.apiKey, userId: reading.userId, clientIp };
  const { classification, verdicts } = explainRequest(table, facts);
  const { rule, matcher, root, identity } = classification;
  const limit = rule.limits[region];
  const secret = args.secret ?? process.env.IDENTITY_HMAC_SECRET;
  const digest = await identityDigest(identity, secret);
  const counter = counterAddress(region, rule.id, digest).name;
  const passedOver = verdicts.filter((v) => v.outcome === "no-identity" || v.outcome === "outranked");

  if (args.json) {
    console.log(
      JSON.stringify(
        {
          request: { method: facts.method, path: reading.path, upstreamPath: reading.upstreamPath, clientIp, region },
          upstream,
          table: table.name,
          rule: { id: rule.id, name: rule.name, category: rule.category, tier: rule.tier, mode: rule.mode },
          matcher: describeMatcher(matcher, root),
          root,
          identity: identity.kind,
          limit: { region, count: limit.count, interval: limit.interval },
          precedence: rule.precedence + 1,
          counter,
          hash: secret ? "hmac-sha256" : "sha256",
          passedOver: passedOver.map((v) => ({ id: v.rule.id, name: v.rule.name, outcome: v.outcome })),
        },
        null,
        2,
      ),
    );
    return;
  }

  const lines = [
    `${facts.method} ${reading.path}` + (reading.path !== asSent ? `   (as sent: ${asSent})` : ""),
    `  region ${region}, client IP key ${clientIp}, upstream ${upstream} (path ${reading.upstreamPath}), table rules/${table.name}.json`,
    ``,
    `rule met:   row ${rule.id} "${rule.name}" (${rule.category}), ${rule.mode}`,
    `limit:      ${limit.count} requests per ${limit.interval} s in ${region}` +
      (rule.limits.us.count !== rule.limits.eu.count || rule.limits.us.interval !== rule.limits.eu.interval
        ? `   (${REGIONS.filter((r) => r !== region).map((r) => `${r}: ${rule.limits[r].count}/${rule.limits[r].interval}`).join(", ")})`
        : ""),
    `why:        matched ${describeMatcher(matcher, root)}; counted per ${IDENTITY_SOURCE[identity.kind]}, which is present`,
    ...(root !== "/" ? [`root:       ${root} is an alias of / (the table's aliasRoots): every anchored row counts under it too`] : []),
    `precedence: ${rule.precedence + 1} of ${table.rules.length} (${precedenceOrder(table)})`,
    `counter:    ${counter}`,
    `            (the identity hashed with ${secret ? "HMAC-SHA-256 and the configured secret" : "SHA-256; with HMAC-SHA-256 when IDENTITY_HMAC_SECRET is set"}; no raw key is stored)`,
  ];
  if (passedOver.length > 0) {
    lines.push(``, `also matched the method and path:`);
    for (const v of passedOver) {
      const why = v.outcome === "no-identity" ? `not applied, ${IDENTITY_MISSING[v.rule.identity]}` : `outranked by row ${rule.id}`;
      lines.push(`  row ${String(v.rule.id).padStart(2)} "${v.rule.name}" (${describeMatcher(v.matcher!, v.root)}): ${why}`);
    }
  }
  console.log(lines.join("\n"));
}

await main();
