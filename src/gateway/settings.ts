import { MIN_SECRET_BYTES } from "../core/rules/identity.ts";
import type { Env } from "../env.ts";
import { SettingError } from "../http/setting-error.ts";
import { parseUpstreamHosts, UPSTREAMS, type HostRoute, type UpstreamName } from "./routes.ts";
import { VarsSchema, type CheckedVars } from "./settings-schema.ts";

/** An upstream is reached through a service binding locally, or an origin URL in production. */
export type Upstream =
  | { readonly kind: "binding"; readonly fetcher: Fetcher }
  | {
      readonly kind: "origin";
      readonly origin: URL;
      /** The origin and its path without trailing slashes: the request's canonical path is appended. */
      readonly base: string;
    };

/** How a request's upstream is chosen (routes.ts): by host (deployed), or by local mount prefix. */
export type Routing = { readonly kind: "hosts"; readonly hosts: readonly HostRoute[] } | { readonly kind: "paths" };

/**
 * The checked settings of one environment, as `parseSettings` makes them from the settings schema
 * (settings-schema.ts, where each variable is declared and described).
 */
export type GatewaySettings = Readonly<ReturnType<typeof parseSettings>>;

/** A counter's name as logs and Analytics Engine may carry it: not at all in the EU (identitiesInTelemetry). */
export function telemetryCounter(settings: Pick<GatewaySettings, "identitiesInTelemetry">, counter: string): string | undefined {
  return settings.identitiesInTelemetry ? counter : undefined;
}

/** Each upstream's service binding and the origin variable that names it or a URL. */
const BINDINGS = {
  "hosted-api": ["HOSTED_API", "HOSTED_API_ORIGIN"],
  "control-plane": ["CONTROL_PLANE", "CONTROL_PLANE_ORIGIN"],
  "agent-server": ["AGENT_SERVER", "AGENT_SERVER_ORIGIN"],
} as const satisfies Record<UpstreamName, readonly [binding: keyof Env, origin: keyof CheckedVars]>;

/**
 * `parse` run once per env object (env objects are stable per isolate); a mistake is remembered
 * too, so every request answers it, and `onMistake` hears of it once. The env of the last call is
 * checked first: in a warm isolate it is every request's.
 */
export function cachedPerEnv<T>(parse: (env: Env) => T, onMistake?: (error: SettingError) => void): (env: Env) => T {
  const cache = new WeakMap<object, T | SettingError>();
  let lastEnv: object | undefined;
  let last: T | SettingError | undefined;
  return (env) => {
    let value = env === lastEnv ? last : cache.get(env);
    if (value === undefined) {
      try {
        value = parse(env);
      } catch (error) {
        if (!(error instanceof SettingError)) throw error;
        value = error;
        onMistake?.(error);
      }
      cache.set(env, value);
    }
    lastEnv = env;
    last = value;
    if (value instanceof SettingError) throw value;
    return value;
  };
}

/**
 * Reads and checks the environment once per isolate. A misconfiguration is remembered too: every
 * request answers it (500, its detail naming the setting), and it is logged once, not once per
 * request.
 */
export const gatewaySettings = cachedPerEnv(parseSettings, (error) => console.log(JSON.stringify({ event: "gateway_misconfigured", detail: error.message })));

/**
 * The schema checks each variable on its own; what it cannot (one setting against another, the
 * secret's length, the upstreams and their bindings, the host list) is checked here, in the
 * order a misconfiguration is reported.
 */
function parseSettings(env: Env) {
  const checked = VarsSchema.safeParse(env);
  if (!checked.success) {
    const issue = checked.error.issues[0]!;
    throw new SettingError(issue.path.join("."), `gateway misconfigured: ${issue.path.join(".")}: ${issue.message}`);
  }
  const vars = checked.data;
  const jurisdiction = vars.COUNTER_JURISDICTION;
  if (jurisdiction !== "none" && jurisdiction !== vars.REGION) {
    // Counting EU identities in US objects (or the reverse) would move identity data across regions.
    throw new SettingError(
      "COUNTER_JURISDICTION",
      `gateway misconfigured: COUNTER_JURISDICTION "${jurisdiction}" must be the region ("${vars.REGION}") or "none"`,
    );
  }
  const { DEV_SETTINGS, TIME_SCALE, LIMITER_ALGORITHM } = vars;
  if (DEV_SETTINGS !== "allow" && (TIME_SCALE !== 1 || LIMITER_ALGORITHM !== "sliding-window")) {
    // The us and eu environments set DEV_SETTINGS=refuse: a deployed gateway must enforce the
    // published limits, never scaled ones or a broken counter.
    throw new SettingError(
      "DEV_SETTINGS",
      `gateway misconfigured: TIME_SCALE and LIMITER_ALGORITHM are development settings, refused unless DEV_SETTINGS=allow (got TIME_SCALE=${TIME_SCALE}, LIMITER_ALGORITHM=${LIMITER_ALGORITHM})`,
    );
  }
  const upstreams = Object.fromEntries((Object.keys(BINDINGS) as UpstreamName[]).map((name) => [name, upstream(env, vars, name)])) as Readonly<
    Record<UpstreamName, Upstream>
  >;
  const agentServer = upstreams["agent-server"];
  if (vars.AGENT_SERVER_HOST === "public" && agentServer.kind === "origin" && agentServer.base !== agentServer.origin.origin) {
    // cf.resolveOverride names a hostname: a path of the origin's would be lost on the way.
    throw new SettingError(
      "AGENT_SERVER_HOST",
      `gateway misconfigured: AGENT_SERVER_HOST=public sends the agent server the public URL, so AGENT_SERVER_ORIGIN must have no path (got ${JSON.stringify(agentServer.base)})`,
    );
  }
  return {
    region: vars.REGION,
    routing: routing(vars.ROUTING, vars.UPSTREAM_HOSTS),
    /** Durable Object jurisdiction of the counters; undefined only for local runs. */
    jurisdiction: jurisdiction === "none" ? undefined : jurisdiction,
    /**
     * Whether logs and Analytics Engine may carry counter names (identity digests). Never in the EU:
     * neither is bound to the jurisdiction the EU counters are pinned to, so nothing derived from an
     * EU identity goes there (docs/identity-data.md, "EU data stays in the EU").
     */
    identitiesInTelemetry: vars.REGION !== "eu",
    failMode: vars.FAIL_MODE,
    counterTimeoutMs: vars.COUNTER_TIMEOUT_MS,
    /** SLOT_LEASE_MS: a concurrency slot's lease (src/gateway/concurrency.ts). */
    slotLeaseMs: vars.SLOT_LEASE_MS,
    upstreamTimeoutMs: vars.UPSTREAM_TIMEOUT_MS,
    /** LONG_POLL_HOLD_MS: how long an agent server may hold a run's join or wait (upstream-timeout.ts). */
    longPollHoldMs: vars.LONG_POLL_HOLD_MS,
    /** AGENT_SERVER_HOST: whether an agent server at an origin is sent the public host (public-host.ts). */
    agentServerPublicHost: vars.AGENT_SERVER_HOST === "public",
    /** FORWARD_CLIENT_ADDRESS: the upstreams told the client's address (forwarded-headers.ts). */
    forwardClientAddress: clientAddressUpstreams(vars.FORWARD_CLIENT_ADDRESS),
    socketIdleMs: vars.SOCKET_IDLE_SECONDS * 1000,
    /** npm start's session secret (local-edge-guard.ts); unset deployed. */
    localEdgeSecret: vars.LOCAL_EDGE_SECRET || undefined,
    /** npm start's local edge, which plays resolveOverride for a public-host request (public-host.ts); unset deployed. */
    localEdgeOrigin: vars.LOCAL_EDGE_ORIGIN || undefined,
    /** IDENTITY_HMAC_SECRET: every identity digest is keyed with it. */
    hmacSecret: identitySecret(vars.IDENTITY_HMAC_SECRET),
    upstreams,
    timeScale: TIME_SCALE,
    algorithm: LIMITER_ALGORITHM,
    overridesRefreshMs: vars.OVERRIDES_REFRESH_MS,
    decisionLogSample: vars.DECISION_LOG_SAMPLE,
    metricsFlushMs: vars.METRICS_FLUSH_MS,
  };
}

/**
 * The secret every identity digest is keyed with. Without one, digests would be plain SHA-256 and
 * an IPv4 address or a short key could be recovered from a log line or an object name by trying
 * them all, so the gateway serves nothing (503, every request) until it is put.
 */
function identitySecret(secret: string | undefined): string {
  const put = `npx wrangler secret put IDENTITY_HMAC_SECRET --env <region>, e.g. from \`openssl rand -base64 48\``;
  if (!secret) throw new SettingError("IDENTITY_HMAC_SECRET", `gateway not ready: the secret IDENTITY_HMAC_SECRET is not set (${put})`, 503);
  const bytes = new TextEncoder().encode(secret).length;
  if (bytes < MIN_SECRET_BYTES) {
    throw new SettingError(
      "IDENTITY_HMAC_SECRET",
      `gateway not ready: the secret IDENTITY_HMAC_SECRET is ${bytes} bytes; it must be at least ${MIN_SECRET_BYTES} (${put})`,
      503,
    );
  }
  return secret;
}

/**
 * Deployed, the gateway serves only the hosts UPSTREAM_HOSTS names; `ROUTING=paths` (one local
 * port, set by npm start and the tests) picks the upstream by mount prefix instead.
 */
function routing(kind: "hosts" | "paths", hosts: string | undefined): Routing {
  if (kind === "paths") return { kind };
  if (!hosts?.trim()) {
    throw new SettingError(
      "UPSTREAM_HOSTS",
      `gateway misconfigured: UPSTREAM_HOSTS is not set; list the hosts this gateway serves and their upstreams, e.g. "api.example.com=hosted-api, control.example.com=control-plane, *.agents.example.com=agent-server"`,
    );
  }
  try {
    return { kind, hosts: parseUpstreamHosts(hosts) };
  } catch (error) {
    throw new SettingError("UPSTREAM_HOSTS", `gateway misconfigured: UPSTREAM_HOSTS: ${(error as Error).message}`);
  }
}

/** What FORWARD_CLIENT_ADDRESS means unset: the hosted services, which read it for their own abuse controls; never the agent server, which stores it. */
const CLIENT_ADDRESS_DEFAULT: readonly UpstreamName[] = ["hosted-api", "control-plane"];

/** FORWARD_CLIENT_ADDRESS: upstream names (comma-separated), `none`, or unset for the default. */
function clientAddressUpstreams(value: string | undefined): ReadonlySet<UpstreamName> {
  const text = value?.trim();
  if (!text) return new Set(CLIENT_ADDRESS_DEFAULT);
  if (text === "none") return new Set();
  const names = text.split(",").map((name) => name.trim());
  const unknown = names.find((name) => !(UPSTREAMS as readonly string[]).includes(name));
  if (unknown !== undefined) {
    throw new SettingError(
      "FORWARD_CLIENT_ADDRESS",
      `gateway misconfigured: FORWARD_CLIENT_ADDRESS names ${JSON.stringify(unknown)}; list upstreams among ${UPSTREAMS.join(", ")}, or "none"`,
    );
  }
  return new Set(names as UpstreamName[]);
}

/** The value of a `*_ORIGIN` variable that opts in to the upstream's service binding (a local emulator Worker). */
export const SERVICE = "service";

/**
 * Each upstream is named explicitly: an origin URL, or `service` for the service binding to its
 * emulator Worker (what `npm start` and the tests bind and use). A deployment that forgets
 * one fails loudly instead of quietly serving an emulator in production.
 */
function upstream(env: Env, vars: CheckedVars, name: UpstreamName): Upstream {
  const [bindingKey, originKey] = BINDINGS[name];
  const origin = vars[originKey]?.trim();
  if (!origin) {
    throw new SettingError(
      originKey,
      `gateway misconfigured: ${originKey} is not set; set it to the ${name} upstream's URL, or to "${SERVICE}" to call its service binding (local runs, which bind the emulator Workers)`,
    );
  }
  if (origin === SERVICE) {
    const fetcher = env[bindingKey];
    if (!fetcher) throw new SettingError(bindingKey, `gateway misconfigured: ${originKey} is "${SERVICE}" but the ${bindingKey} service binding is missing`);
    return { kind: "binding", fetcher };
  }
  if (!URL.canParse(origin) || !/^https?:$/.test(new URL(origin).protocol)) {
    throw new SettingError(originKey, `gateway misconfigured: ${originKey} must be an http(s) URL or "${SERVICE}" (got ${JSON.stringify(origin)})`);
  }
  const url = new URL(origin);
  return { kind: "origin", origin: url, base: url.origin + url.pathname.replace(/\/+$/, "") };
}
