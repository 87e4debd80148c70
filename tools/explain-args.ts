// Pure: command-line arguments of `npm run explain` to a described request. Every refusal names
// the bad operand or option.
import { clientIpKey, UNKNOWN_CLIENT } from "../src/core/rules/client-ip.ts";
import { METHODS, REGIONS, type Region } from "../src/core/rules/schema.ts";
import { UPSTREAMS, type UpstreamName } from "../src/gateway/routes.ts";
import { BadArgument, parseOptions } from "./kit/args.ts";

export const HELP = `usage: npm run explain -- METHOD PATH [options]

Says which published rule a request meets, why, its limit in the region, and the counter it is
counted on, using the gateway's own modules (its reading of the request included).

  METHOD              ${METHODS.join(", ")} (any case)
  PATH                the path as sent to npm start, starting with "/" (a query string is
                      ignored): the agent server's below /agent-server, the control plane's
                      below /v2, the hosted API's elsewhere
  --upstream NAME     read PATH as that upstream's own (as its host receives it when deployed):
                      ${UPSTREAMS.join(", ")}
  -H, --header 'N: V' a request header; repeat for more (x-api-key, x-user-id, cf-connecting-ip...)
  --region us|eu      whose limits apply (default us)
  --ip ADDRESS        the client IP, as CF-Connecting-IP would give it (default 127.0.0.1)
  --secret S          hash identities with HMAC-SHA-256 and S, as IDENTITY_HMAC_SECRET does
  --json              print the explanation as JSON
  -h, --help          this text

examples:
  npm run explain -- POST /runs/query -H 'x-api-key: k'
  npm run explain -- GET /api/v1/runs/67E55044-10B1-426F-9247-BB680E5FE0C8 -H 'x-api-key: k' --region eu
  npm run explain -- GET /auth --ip 2001:db8::7 --json
  npm run explain -- POST /agent-server/runs/wait -H 'x-api-key: k'
  npm run explain -- POST /runs/wait --upstream agent-server -H 'x-api-key: k'

exit status: 0 explained, 2 bad arguments or a request the gateway would refuse`;

export interface ExplainArgs {
  readonly help: boolean;
  readonly method: string;
  /** As typed: starts with "/", query and fragment removed. */
  readonly path: string;
  /** In order, repeats kept (the gateway sees repeated lines joined). */
  readonly headers: ReadonlyArray<readonly [string, string]>;
  readonly region: Region;
  readonly ip: string;
  readonly secret: string | undefined;
  readonly json: boolean;
  /** Set: PATH is this upstream's own; unset: PATH is read through the local mounts. */
  readonly upstream: UpstreamName | undefined;
}

const OPTIONS = {
  header: { type: "string", short: "H", multiple: true },
  region: { type: "string", default: "us" },
  ip: { type: "string", default: "127.0.0.1" },
  secret: { type: "string" },
  upstream: { type: "string" },
  json: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** @throws BadArgument naming the operand or option */
export function parseExplainArgs(argv: readonly string[]): ExplainArgs {
  const { values, positionals } = parseOptions(argv, OPTIONS, true);
  if (values.upstream !== undefined && !(UPSTREAMS as readonly string[]).includes(values.upstream)) {
    throw new BadArgument(`--upstream: must be one of ${UPSTREAMS.join(", ")} (got "${values.upstream}")`);
  }
  const upstream = values.upstream as UpstreamName | undefined;
  const base = { region: "us" as Region, ip: values.ip, secret: values.secret, json: values.json, headers: [], upstream };
  if (values.help) return { ...base, help: true, method: "", path: "" };
  if (positionals.length !== 2) throw new BadArgument(`expected METHOD and PATH (got ${positionals.length} operand${positionals.length === 1 ? "" : "s"})`);

  const method = positionals[0]!.toUpperCase();
  if (!(METHODS as readonly string[]).includes(method)) throw new BadArgument(`METHOD: "${positionals[0]}" is not one of ${METHODS.join(", ")}`);
  const path = positionals[1]!.split(/[?#]/, 1)[0]!;
  if (!path.startsWith("/")) throw new BadArgument(`PATH: "${positionals[1]}" must start with "/"`);
  if (!(REGIONS as readonly string[]).includes(values.region)) throw new BadArgument(`--region: must be one of ${REGIONS.join(", ")} (got "${values.region}")`);
  if (clientIpKey(values.ip) === UNKNOWN_CLIENT) throw new BadArgument(`--ip: "${values.ip}" is not an IPv4 or IPv6 address`);

  const headers = (values.header ?? []).map((header): [string, string] => {
    const colon = header.indexOf(":");
    const name = header.slice(0, colon).trim();
    if (colon <= 0 || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) throw new BadArgument(`--header: "${header}" is not "name: value"`);
    const value = header.slice(colon + 1).trim();
    if (name.toLowerCase() === "cf-connecting-ip" && clientIpKey(value) === UNKNOWN_CLIENT) {
      throw new BadArgument(`--header: cf-connecting-ip "${value}" is not an IPv4 or IPv6 address`);
    }
    return [name, value];
  });
  return { ...base, help: false, method, path, headers, region: values.region as Region };
}
