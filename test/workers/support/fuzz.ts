import fc from "fast-check";
import { MAX_JSON_DEPTH } from "../../../emulators/shared/json-depth.ts";
import { GITHUB_INTEGRATION } from "../../../emulators/control-plane/integrations/seed.ts";

/**
 * Arbitraries for fuzzing the emulators. Each one generates a small, printable *plan* (what to
 * send), never the bytes themselves: a failing case reads as `{kind: "huge", megabytes: 3, ...}`,
 * not as 3 MB of text, and fuzz-request.ts turns a plan into a request at send time (that is
 * also when "an existing id" is resolved against what is stored then).
 */

type Json = fc.JsonValue;

/**
 * Bodies the emulators accept (one or two per resource): mutated, they reach the code behind
 * validation. Their keys, at any depth, are also the field names the fuzz puts wrong values in.
 */
export const EXAMPLE_BODIES: readonly Readonly<Record<string, Json>>[] = [
  {
    graph_id: "agent",
    name: "fuzz",
    description: "d",
    config: { tags: ["a"] },
    context: { system_prompt: "hi", model: "m" },
    metadata: { team: "fuzz" },
    if_exists: "do_nothing",
  },
  { metadata: { team: "fuzz" }, graph_id: "agent", name: "fuzz", limit: 10, offset: 0, sort_by: "name", sort_order: "asc", select: ["name", "metadata"] },
  { version: 1 },
  { metadata: { k: "v" }, if_exists: "do_nothing", ttl: null, supersteps: [] },
  {
    assistant_id: "agent",
    input: { messages: [{ role: "user", content: "hi" }] },
    stream_mode: ["values", "updates"],
    metadata: {},
    config: {},
    if_not_exists: "create",
    on_disconnect: "continue",
  },
  { compute_type: "k8s", compute_id: "fuzz-cluster", compute_config: { k8s_namespaces: ["ns"] }, version: "1.0" },
  {
    name: "fuzz-template",
    image: "python:3.12-slim",
    resources: { cpu: "500m", memory: "1Gi", storage: "5Gi" },
    volume_mounts: [{ volume_name: "data", mount_path: "/data" }],
  },
  {
    name: "fuzz-deployment",
    source: "github",
    source_config: {
      integration_id: GITHUB_INTEGRATION.id,
      repo_url: "https://github.com/acme/agent",
      deployment_type: "dev",
      resource_spec: { min_scale: 1, labels: { a: "b" } },
    },
    source_revision_config: { repo_ref: "main", langgraph_config_path: "langgraph.json" },
    secrets: [{ name: "KEY", value: "secret" }],
  },
  { source_revision_config: { repo_ref: "release" }, secrets: [{ name: "KEY", value: "********" }] },
  // The seeded workspace's own plan: setting it again changes nothing, so listeners stay allowed.
  { plan: "enterprise-self-hosted" },
];

/** Every key of the example bodies, at any depth. */
export const FIELD_NAMES: readonly string[] = [...new Set(EXAMPLE_BODIES.flatMap((body) => keysOf(body).map(([key]) => key)))].sort();

/** The keys whose example value is an object or a list: where a deep value is taken in, stored and sent back. */
export const CONTAINER_FIELDS: readonly string[] = [
  ...new Set(
    EXAMPLE_BODIES.flatMap((body) =>
      keysOf(body)
        .filter(([, value]) => value !== null && typeof value === "object")
        .map(([key]) => key),
    ),
  ),
].sort();

/** Query parameters the emulators read, plus whatever random names come along. */
const QUERY_NAMES = [
  "limit",
  "offset",
  "version",
  "delete_threads",
  "status",
  "name_contains",
  "deployment_ids",
  "deployment_type",
  "image_version",
  "tag_value_ids",
  "delete_tracing_project",
];

/** Percent-escapes worth trying: invalid, overlong, control, separators, dot segments, astral. */
const ESCAPES = [
  "%",
  "%Z",
  "%ZZ",
  "%00",
  "%0A",
  "%2F",
  "%5C",
  "%2E",
  "%2E%2E",
  "%25",
  "%3F",
  "%23",
  "%C0%AF",
  "%E0%80%AE",
  "%FF",
  "%E2%80%AE",
  "%F0%9F%92%A9",
  "%20",
  "..",
  ".",
];

/** How a path parameter is filled in. */
export type ParamPlan =
  /** The `pick`-th id stored for that parameter when the request is sent (a random uuid if none is). */
  | { readonly kind: "existing"; readonly pick: number }
  /** A well-formed uuid nobody created (any version, sometimes upper case). */
  | { readonly kind: "uuid"; readonly value: string }
  /** Any other text, percent-encoded as a client would. */
  | { readonly kind: "text"; readonly value: string }
  /** Raw percent-escapes, sent as they are (often malformed on purpose). */
  | { readonly kind: "escaped"; readonly value: string };

export const paramPlan: fc.Arbitrary<ParamPlan> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant("existing" as const), pick: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("uuid" as const), value: fc.mixedCase(fc.uuid()) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("text" as const),
      value: fc.oneof(
        fc.constantFrom("agent", "pipeline", "null", "0", "-1", "undefined", "{}", "00000000-0000-0000-0000-00000000000", " "),
        fc.string({ unit: "grapheme", maxLength: 40 }),
      ),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("escaped" as const),
      value: fc
        .array(fc.oneof(fc.constantFrom(...ESCAPES), fc.stringMatching(/^[a-z0-9-]{1,6}$/)), { minLength: 1, maxLength: 6 })
        .map((parts) => parts.join("")),
    }),
  },
);

const printable = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength });

const queryValue = fc.oneof(
  fc.constantFrom("", "0", "1", "-1", "1.5", "1e3", "0x10", "true", "no", "maybe", "99999999999999999999999", "CREATING,bogus", ",,,", "null"),
  fc.uuid(),
  fc.integer().map(String),
  fc.string({ unit: "grapheme", maxLength: 30 }),
);

/** The query string: encoded pairs, sometimes followed by raw, possibly malformed text. */
export interface QueryPlan {
  readonly pairs: readonly (readonly [string, string])[];
  readonly raw: string;
}

export const queryPlan: fc.Arbitrary<QueryPlan> = fc.record({
  pairs: fc.array(fc.tuple(fc.oneof(fc.constantFrom(...QUERY_NAMES), fc.string({ unit: "grapheme", maxLength: 12 })), queryValue), { maxLength: 4 }),
  raw: fc.oneof(
    { weight: 4, arbitrary: fc.constant("") },
    { weight: 1, arbitrary: fc.array(fc.oneof(fc.constantFrom(...ESCAPES, "&", "=", "&&", "=="), printable(5)), { maxLength: 5 }).map((p) => p.join("")) },
  ),
});

/**
 * Extra request headers. Never the ones that pick the rate-limit identity (x-api-key,
 * cf-connecting-ip: the fuzz sets those fresh per request) nor framing headers the client itself
 * owns (content-length, transfer-encoding, host).
 */
const HEADER_NAMES = [
  "accept",
  "accept-encoding",
  "authorization",
  "content-encoding",
  "cookie",
  "if-none-match",
  "origin",
  "range",
  "x-forwarded-for",
  "x-request-id",
  "x-tenant-id",
  "x-user-id",
];

/**
 * `Connection` names headers the gateway strips before the emulator sees them (the tenant, the
 * content type); a value that is not a list of header names the gateway refuses with 400 {detail}.
 */
const connection = fc.oneof(
  fc
    .array(fc.oneof(fc.constantFrom("keep-alive", "close", "x-tenant-id", "content-type", "authorization", "x-user-id"), fc.stringMatching(/^x-[a-z]{1,8}$/)), {
      minLength: 1,
      maxLength: 3,
    })
    .map((names) => names.join(", ")),
  fc.constantFrom("text/event-stream", "a b", "x-a;x-b"),
);

export const headersPlan: fc.Arbitrary<readonly (readonly [string, string])[]> = fc.array(
  fc.oneof(
    { weight: 1, arbitrary: fc.tuple(fc.constant("connection"), connection) },
    {
      weight: 6,
      arbitrary: fc.tuple(
        fc.oneof(fc.constantFrom(...HEADER_NAMES), fc.stringMatching(/^x-fuzz-[a-z0-9-]{1,10}$/)),
        fc.oneof(fc.constantFrom("gzip", "br", "Bearer", "Bearer ", "text/event-stream", "*/*", "bytes=0-1"), printable(60)),
      ),
    },
  ),
  { maxLength: 3 },
);

/** Content types: JSON in its spellings, other types, none at all, and nonsense. */
export const contentTypePlan: fc.Arbitrary<string | null> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("application/json") },
  { weight: 1, arbitrary: fc.constant(null) },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "application/problem+json",
      "application/vnd.fuzz+json",
      "application/jsonl",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=fuzz",
      "text/plain",
      "text/json",
      "",
      "json",
      "application/",
      ";;;",
    ),
  },
  { weight: 1, arbitrary: printable(30) },
);

/**
 * Credentials. The control plane needs one (a tenant id names the seeded workspace, so refusals
 * can damage it); the agent server ignores them. Every request gets a fresh client IP, and a fresh
 * x-api-key unless the plan says otherwise, so the gateway's rate limits never interfere.
 */
export type CredentialsPlan = "tenant" | "api-key" | "bearer" | "bad-tenant" | "none";
export const credentialsPlan: fc.Arbitrary<CredentialsPlan> = fc.oneof(
  { weight: 8, arbitrary: fc.constant("tenant" as const) },
  ...(["api-key", "bearer", "bad-tenant", "none"] as const).map((kind) => ({ weight: 1, arbitrary: fc.constant(kind) })),
);

export type BodyPlan =
  | { readonly kind: "none" }
  /** Text that is (almost always) not JSON: random, or valid JSON cut short. */
  | { readonly kind: "text"; readonly text: string }
  /** Arbitrary bytes, mostly not UTF-8. */
  | { readonly kind: "bytes"; readonly bytes: readonly number[] }
  /** Any JSON value as the whole body (a list, a string, a number where an object belongs). */
  | { readonly kind: "json"; readonly value: Json }
  /** An object of known field names with values of any type. */
  | { readonly kind: "fields"; readonly value: Readonly<Record<string, Json>> }
  /** An example body with one field set to any value, or removed (`value` undefined). */
  | { readonly kind: "mutated"; readonly example: number; readonly field: string; readonly value?: Json }
  /**
   * An example body whose `fields` (one, or every field that holds an object or list anywhere in
   * the examples) each hold a value nested `depth - 1` levels, so the body is about `depth` deep.
   * Unclosed: cut off after the first value's openers (deep and malformed).
   */
  | { readonly kind: "nested"; readonly example: number; readonly fields: readonly string[]; readonly depth: number; readonly closed: boolean }
  /** Megabytes of data in `field` of an otherwise empty object, or as the whole (non-JSON) body. */
  | { readonly kind: "huge"; readonly megabytes: number; readonly field: string; readonly shape: "string" | "array" | "keys" | "not-json" };

const field = fc.constantFrom(...FIELD_NAMES);
const example = fc.nat({ max: EXAMPLE_BODIES.length - 1 });
const jsonValue = fc.jsonValue({ maxDepth: 3 });

export const bodyPlan: fc.Arbitrary<BodyPlan> = fc.oneof(
  { weight: 1, arbitrary: fc.constant({ kind: "none" as const }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("text" as const),
      text: fc.oneof(
        fc.string({ unit: "grapheme", maxLength: 60 }),
        fc.tuple(fc.json(), fc.nat()).map(([text, cut]) => text.slice(0, cut % Math.max(1, text.length))),
      ),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("bytes" as const), bytes: fc.array(fc.nat({ max: 255 }), { minLength: 1, maxLength: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("json" as const), value: jsonValue }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("fields" as const), value: fc.dictionary(field, jsonValue, { maxKeys: 5 }) }) },
  {
    weight: 5,
    arbitrary: fc.record({ kind: fc.constant("mutated" as const), example, field, value: jsonValue }, { requiredKeys: ["kind", "example", "field"] }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("nested" as const),
      example,
      // Every container field at once reaches whatever the route reads, whichever it is.
      fields: fc.oneof(
        fc.constantFrom(...CONTAINER_FIELDS).map((f) => [f]),
        fc.constant(CONTAINER_FIELDS),
      ),
      // Around the bound; shallow; and deep enough to overflow the stack if nothing stopped it.
      depth: fc.oneof(
        fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }),
        fc.integer({ min: 2, max: 50 }),
        fc.integer({ min: 5_000, max: 20_000 }),
      ),
      closed: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("huge" as const),
      megabytes: fc.integer({ min: 1, max: 4 }),
      field,
      shape: fc.constantFrom("string" as const, "array" as const, "keys" as const, "not-json" as const),
    }),
  },
);

/** Everything about one fuzzed request except its route. */
export interface RequestPlan {
  /** The route's own method, or another one. */
  readonly method: string | null;
  readonly params: readonly ParamPlan[];
  readonly query: QueryPlan;
  readonly headers: readonly (readonly [string, string])[];
  readonly contentType: string | null;
  readonly credentials: CredentialsPlan;
  readonly body: BodyPlan;
}

/** Plans for a route with `paramCount` path parameters. */
export function requestPlan(paramCount: number): fc.Arbitrary<RequestPlan> {
  return fc.record({
    method: fc.oneof(
      { weight: 9, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS") },
    ),
    params: fc.array(paramPlan, { minLength: paramCount, maxLength: paramCount }),
    query: queryPlan,
    headers: headersPlan,
    contentType: contentTypePlan,
    credentials: credentialsPlan,
    body: bodyPlan,
  });
}

/** Every (key, value) pair of a JSON value, at any depth. */
function keysOf(value: Json): [string, Json][] {
  if (value === null || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap(keysOf);
  return Object.entries(value).flatMap(([key, child]): [string, Json][] => [[key, child as Json], ...keysOf(child as Json)]);
}
