#!/usr/bin/env node
// npm run explain -- POST /runs/query -H 'x-api-key: k' [--region eu] [--ip 203.0.113.7] [--secret S] [--json]
//
// Prints the rule a request meets, why (matcher, identity, precedence), its limit in the region
// and the hashed counter key, using the same modules the gateway runs.
import { parseArgs } from "node:util";
import { explainRequest } from "../rules/explain.ts";
import { hostedApiTable } from "../rules/hosted-api.ts";
import { clientIpKey } from "../rules/client-ip.ts";
import { counterName, identityDigest } from "../rules/identity.ts";
import { describeMatcher } from "../rules/match.ts";
import { readRequest } from "../rules/read-request.ts";
import { REGIONS, type Region } from "../rules/schema.ts";
import { upstreamFor } from "../gateway/routes.ts";

const USAGE = `usage: npm run explain -- METHOD PATH [-H 'name: value']... [--region us|eu] [--ip ADDRESS] [--secret S] [--json]`;

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

function fail(message: string): never {
  console.error(`explain: ${message}\n${USAGE}`);
  process.exit(2);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        header: { type: "string", short: "H", multiple: true },
        region: { type: "string", default: "us" },
        ip: { type: "string", default: "127.0.0.1" },
        secret: { type: "string" },
        json: { type: "boolean", default: false },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (error) {
    fail((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (positionals.length !== 2) fail("expected METHOD and PATH");
  const [method, target] = positionals as [string, string];
  if (!(REGIONS as readonly string[]).includes(values.region)) fail(`--region must be one of ${REGIONS.join(", ")}`);
  const region = values.region as Region;

  // Repeated -H lines are joined with ", " as the Workers runtime joins repeated header lines, so
  // the gateway's own reading refuses them here exactly as it would there.
  const headers = new Headers();
  for (const header of values.header ?? []) {
    const colon = header.indexOf(":");
    if (colon <= 0) fail(`header "${header}" is not "name: value"`);
    try {
      headers.append(header.slice(0, colon).trim(), header.slice(colon + 1).trim());
    } catch {
      fail(`header "${header}" is not a valid HTTP header`);
    }
  }

  const asSent = target.split(/[?#]/, 1)[0] || "/";
  // Parsed as the gateway's runtime parses the request URL (concatenated, so "//a" stays a path).
  const rawPath = new URL(`http://gateway${asSent.startsWith("/") ? asSent : `/${asSent}`}`).pathname;
  const reading = readRequest(hostedApiTable, { method: method.toUpperCase(), rawPath, headers });
  if (!reading.ok) fail(`the gateway would refuse this request with ${reading.status}: ${reading.detail}`);

  const clientIp = clientIpKey(headers.get("cf-connecting-ip") ?? values.ip);
  const facts = { method: reading.method, path: reading.path, apiKey: reading.apiKey, userId: reading.userId, clientIp };
  const normalized = { path: reading.path, upstreamPath: reading.upstreamPath };
  const { classification, verdicts } = explainRequest(hostedApiTable, facts);
  const { rule, matcher, root, identity } = classification;
  const limit = rule.limits[region];
  const secret = values.secret ?? process.env.IDENTITY_HMAC_SECRET;
  const digest = await identityDigest(identity, secret);
  const counter = counterName(region, rule.id, digest);
  const passedOver = verdicts.filter((v) => v.outcome === "no-identity" || v.outcome === "outranked");

  if (values.json) {
    console.log(
      JSON.stringify(
        {
          request: { method: facts.method, path: normalized.path, upstreamPath: normalized.upstreamPath, clientIp, region },
          upstream: upstreamFor(normalized.path),
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
    `${facts.method} ${normalized.path}` + (normalized.path !== asSent ? `   (as sent: ${asSent})` : ""),
    `  region ${region}, client IP key ${clientIp}, upstream ${upstreamFor(normalized.path)} (path ${normalized.upstreamPath})`,
    ``,
    `rule met:   row ${rule.id} "${rule.name}" (${rule.category}), ${rule.mode}`,
    `limit:      ${limit.count} requests per ${limit.interval} s in ${region}` +
      (rule.limits.us.count !== rule.limits.eu.count || rule.limits.us.interval !== rule.limits.eu.interval
        ? `   (${REGIONS.filter((r) => r !== region).map((r) => `${r}: ${rule.limits[r].count}/${rule.limits[r].interval}`).join(", ")})`
        : ""),
    `why:        matched ${describeMatcher(matcher, root)}; counted per ${IDENTITY_SOURCE[identity.kind]}, which is present`,
    ...(root !== "/" ? [`root:       ${root} is an alias of / (the table's aliasRoots): every anchored row counts under it too`] : []),
    `precedence: ${rule.precedence + 1} of ${hostedApiTable.rules.length} (specific rows in table order, then the defaults 25 and 26, then the catch-all 29)`,
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
