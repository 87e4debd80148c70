/**
 * Every variable and secret the gateway reads, declared once: its name, how it is checked, its
 * default, and what it means. From this schema come the variables of the Env type (src/env.ts),
 * the parsed settings (settings.ts), and the table in docs/configuration.md, which
 * test/unit/gateway/settings-table.test.ts renders from `settingDocs` and holds the page to.
 *
 * Pure module (zod and the core only), so the Node-side tests read it without the Workers runtime.
 */
import { z } from "zod";
import { REGIONS } from "../core/rules/schema.ts";

/** What docs/configuration.md says of a setting: one row of its table. */
export interface SettingDoc {
  /** The values it takes, as the table shows them (markdown). */
  readonly type: string;
  /** The value a missing (or empty) variable stands for, or what missing means. */
  readonly default: string;
  /** What it does, where it is set and what each region sets (markdown). */
  readonly meaning: string;
}

/** A setting as wrangler hands it to the Worker: a string, or nothing. */
type Setting = z.ZodType<unknown, string | undefined>;

/** Each setting's documentation, keyed by its schema (zod 4 metadata, its typed registry). */
export const settingDocs = z.registry<SettingDoc, Setting>();

const code = (value: string | number) => `\`${value}\``;
const oneOf = (values: readonly string[]) => values.map(code).join(" or ");

/**
 * A setting that must be set to one of `values`. A missing one fails with the message zod gives
 * any value outside an enum, so the operator reads the same words whether it is absent or wrong.
 */
function required<const V extends readonly [string, ...string[]]>(values: V, meaning: string) {
  const expected = `Invalid option: expected one of ${values.map((value) => JSON.stringify(value)).join("|")}`;
  return z
    .string({ error: (issue) => (issue.input === undefined ? expected : undefined) })
    .pipe(z.enum(values))
    .register(settingDocs, { type: oneOf(values), default: "(required)", meaning });
}

/** One of `values`; missing or empty means `fallback`. */
function choice<const V extends readonly [string, ...string[]]>(values: V, fallback: V[number], meaning: string) {
  return z
    .string()
    .optional()
    .transform((value) => value || fallback)
    .pipe(z.enum(values))
    .register(settingDocs, { type: oneOf(values), default: code(fallback), meaning });
}

interface Bounds {
  readonly integer: boolean;
  /** Exclusive lower bound. */
  readonly above?: number;
  /** Inclusive lower bound. */
  readonly min?: number;
  readonly max: number;
  readonly unit?: string;
}

/** A number within `bounds`; missing or empty means `fallback`. */
function quantity(fallback: number, bounds: Bounds, meaning: string) {
  let check = bounds.integer ? z.int() : z.number();
  if (bounds.above !== undefined) check = check.gt(bounds.above);
  if (bounds.min !== undefined) check = check.min(bounds.min);
  check = check.max(bounds.max);
  const lower = bounds.above !== undefined ? `above ${bounds.above}` : `${bounds.min}`;
  const range = bounds.above !== undefined ? `${lower}, at most ${bounds.max}` : `${lower} to ${bounds.max}`;
  const type = `${bounds.integer ? "integer" : "number"}${bounds.unit ? ` (${bounds.unit})` : ""}, ${range}`;
  return z
    .string()
    .optional()
    .transform((value) => (value === undefined || value === "" ? fallback : Number(value)))
    .pipe(check)
    .register(settingDocs, { type, default: code(fallback), meaning });
}

/** Text the gateway checks where it is used (settings.ts, the admin API), or a secret. */
function text(doc: SettingDoc) {
  return z.string().optional().register(settingDocs, doc);
}

/** An upstream's origin: settings.ts refuses it missing, or anything but an http(s) URL or `service`. */
function origin(upstream: string) {
  return text({
    type: "http(s) URL or `service`",
    default: "empty (refused)",
    meaning: `the ${upstream}'s origin; \`service\` calls the service binding to its emulator Worker (local runs, which add the bindings). Empty, every request is answered 500 "gateway misconfigured"`,
  });
}

const MAX_WAIT_MS = 300_000;

/**
 * In the order the table lists them. A request's first failing setting is the one its error
 * names, so the checked settings keep their relative order.
 */
export const VarsSchema = z.object({
  REGION: required(REGIONS, "which limits apply; one Worker per region (wrangler.toml `[env.us]`, `[env.eu]`)"),
  COUNTER_JURISDICTION: required(
    [...REGIONS, "none"],
    "Durable Object jurisdiction of the counters: the region itself (`us` sets `us`, `eu` sets `eu`), or `none` where it cannot be emulated (`npm start` and the tests pass `none`, because workerd does not implement jurisdictions). Any other value is refused: EU identities are never counted in US objects.",
  ),
  FAIL_MODE: choice(
    ["open", "closed"],
    "open",
    "what a request gets when its counter object fails or is overloaded: `open`, decided by the isolate's local fallback window (never uncounted); `closed`, 503",
  ),
  COUNTER_TIMEOUT_MS: quantity(
    1_000,
    { integer: true, above: 0, max: MAX_WAIT_MS, unit: "ms" },
    "wait for the counter object (and for a slots object: [Concurrency](counting.md#concurrency))",
  ),
  SLOT_LEASE_MS: quantity(
    30_000,
    { integer: true, min: 3_000, max: 600_000, unit: "ms" },
    "the lease of a concurrency slot (a socket or stream held open), renewed every third of it while held: the longest a slot outlives an isolate that vanished without giving it back ([Concurrency](counting.md#concurrency))",
  ),
  UPSTREAM_TIMEOUT_MS: quantity(
    30_000,
    { integer: true, above: 0, max: MAX_WAIT_MS, unit: "ms" },
    "wait for the first byte of an upstream's answer (its response headers), never for a body after them; a long poll gets its documented hold on top ([Upstream timeouts](#upstream-timeouts))",
  ),
  LONG_POLL_HOLD_MS: quantity(
    3_600_000,
    { integer: true, above: 0, max: 86_400_000, unit: "ms" },
    "how long an agent server may hold the headers of a run's `join` or `wait` (it sends them when the run ends): the longest run the gateway waits for, on top of `UPSTREAM_TIMEOUT_MS` ([Upstream timeouts](#upstream-timeouts))",
  ),
  SOCKET_IDLE_SECONDS: quantity(
    300,
    { integer: true, above: 0, max: 86_400, unit: "s" },
    "a relayed WebSocket across which no frame passed, either way, for this long is closed with code `4408` ([WebSockets](rules.md#websockets))",
  ),
  DEV_SETTINGS: choice(
    ["refuse", "allow"],
    "refuse",
    "`us` and `eu` set `refuse`: the two development settings below are then refused; only the load test's own local gateway sets `allow`",
  ),
  TIME_SCALE: quantity(
    1,
    { integer: false, above: 0, max: 3600 },
    "development only: every rule interval is divided by it (hour-long windows verified in minutes); `Retry-After` and `RateLimit` `t` are then real seconds, `RateLimit-Policy` stays as published, and responses carry `x-tollgate-time-scale`",
  ),
  LIMITER_ALGORITHM: choice(
    ["sliding-window", "fixed-window"],
    "sliding-window",
    "development only: `fixed-window` swaps in a deliberately broken counter (2x `count` across a window boundary) so the load test can prove it catches a violation",
  ),
  ROUTING: choice(
    ["hosts", "paths"],
    "hosts",
    "how the upstream is chosen: `hosts` (deployed) by the request's host from `UPSTREAM_HOSTS`; `paths` (npm start, tests) by local mount prefix ([Routing](rules.md#routing-and-proxying))",
  ),
  UPSTREAM_HOSTS: text({
    type: "`host=upstream` list",
    default: "empty (refused under `hosts`)",
    meaning:
      "the hosts this gateway serves and their upstreams, e.g. `api.example.com=hosted-api, control.example.com=control-plane, *.agents.example.com=agent-server`",
  }),
  HOSTED_API_ORIGIN: origin("hosted API"),
  CONTROL_PLANE_ORIGIN: origin("control plane"),
  AGENT_SERVER_ORIGIN: origin("agent server"),
  AGENT_SERVER_HOST: choice(
    ["origin", "public"],
    "origin",
    "the `Host` an agent server at an origin receives: `origin`, its own URL's; `public`, the host the client called (the open-source server builds URLs from it), the request sent to the origin by `cf.resolveOverride`, so `AGENT_SERVER_ORIGIN` must be a hostname in the gateway's zone, without a path ([Routing](rules.md#routing-and-proxying))",
  ),
  FORWARD_CLIENT_ADDRESS: text({
    type: "upstream list, or `none`",
    default: "`hosted-api, control-plane`",
    meaning:
      "the upstreams told the client's IP address (`X-Forwarded-For`, `X-Real-IP`, `True-Client-IP`, `Forwarded: for=`); any other gets none of them. The agent server copies a request's `x-*` headers into every run it stores, so it gets the address only when listed here. `us` leaves it unset; `eu` sets `none`: no upstream is told an EU client's address unless the operator lists it there, so EU identity data stays under the gateway's control ([docs/identity-data.md](identity-data.md#what-each-upstream-receives))",
  }),
  IDENTITY_HMAC_SECRET: text({
    type: "secret, at least 32 bytes",
    default: "(required)",
    meaning:
      "the key of every identity digest (`wrangler secret put`). Missing or short, every request is answered `503` naming it and health says so ([docs/identity-data.md](identity-data.md)); local runs make this checkout's own in `.dev.vars`",
  }),
  // Operating the gateway live (docs/operating.md).
  OVERRIDES_REFRESH_MS: quantity(
    5_000,
    { integer: true, min: 100, max: MAX_WAIT_MS, unit: "ms" },
    "how old an isolate's copy of the overrides may get: the bound on applying a change",
  ),
  DECISION_LOG_SAMPLE: quantity(
    0.01,
    { integer: false, min: 0, max: 1 },
    "the share of admissions (and deny-cache denials) logged; denials, blocks and exemptions are always logged",
  ),
  METRICS_FLUSH_MS: quantity(
    10_000,
    { integer: true, min: 0, max: MAX_WAIT_MS, unit: "ms" },
    "at most how often an isolate hands its metrics to the region's metrics object",
  ),
  ADMIN_HOSTS: text({
    type: "host list",
    default: "unset (admin API off)",
    meaning: "the only hosts the admin API and dashboard answer on, e.g. `tollgate-admin.us.example.com`; never an upstream host ([docs/admin.md](admin.md))",
  }),
  ADMIN_TOKEN: text({
    type: "secret, at least 16 characters",
    default: "unset",
    meaning:
      'the admin API\'s token, named "admin" in the audit log. With it, `ADMIN_TOKENS` and `ADMIN_READ_TOKENS` all unset, the admin API is off (404) ([Operating the gateway](operating.md))',
  }),
  ADMIN_TOKENS: text({
    type: "secret: `name=token` list, each at least 16 characters",
    default: "unset",
    meaning: "more operator tokens, each named for the audit log: `alice=<token>, oncall=<token>`; a name is used once across the three token settings",
  }),
  ADMIN_READ_TOKENS: text({
    type: "secret: `name=token` list, each at least 16 characters",
    default: "unset",
    meaning: "read-only admin tokens (GET and HEAD only, e.g. metrics scraping), named the same way: `prometheus=<token>`",
  }),
  LOCAL_EDGE_SECRET: text({
    type: "secret",
    default: "unset",
    meaning: "`npm start` only: the session's secret its local edge sends; set, a request without it is refused (src/gateway/local-edge-guard.ts)",
  }),
  LOCAL_EDGE_ORIGIN: text({
    type: "http URL",
    default: "unset",
    meaning:
      "`npm start` only: where its local edge listens. A request for an agent server's public host (`AGENT_SERVER_HOST=public`) goes there, and the edge sends it on to the origin with that host, as Cloudflare's `resolveOverride` does deployed: so no public hostname needs to resolve on the machine",
  }),
});

/** The variables and secrets of an environment, as wrangler hands them over (strings). */
export type SettingVars = z.input<typeof VarsSchema>;

/** The same, checked, with their defaults filled in. */
export type CheckedVars = z.output<typeof VarsSchema>;
