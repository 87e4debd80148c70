import type { JsonObject, JsonValue } from "../../shared/pydantic/json.ts";

/**
 * Request headers the real server never copies into a run's configurable (its
 * `BLOCKED_CONFIGURABLE_HEADERS`): credentials.
 */
const BLOCKED_HEADERS = new Set(["x-api-key", "x-tenant-id", "x-service-key"]);

/**
 * Headers a proxy in front of the server sets about the client or the route it took, never the
 * client itself: the real server copies them too, so behind a gateway every run would store the
 * caller's address. The emulator leaves them out, and the gateway's own `x-tollgate-*` with them
 * (docs/agent-server.md, "Runs": what a run's config holds).
 */
const PROXY_HEADERS = new Set(["x-real-ip", "x-client-ip", "x-cluster-client-ip", "x-original-url", "x-rewrite-url"]);
const PROXY_PREFIXES = ["x-forwarded", "x-original-forwarded", "x-tollgate-"];

/**
 * The request headers a run's `config.configurable` takes, as the real server's
 * `applyRequestHeadersToRunConfig` copies them: `user-agent` and every `x-*` header by its
 * lower-case name, except credentials and what a proxy adds.
 */
export function configurableHeaders(headers: Headers | undefined): JsonObject {
  const copied: JsonObject = {};
  for (const [name, value] of headers ?? []) {
    const key = name.toLowerCase();
    if (key === "user-agent" || (key.startsWith("x-") && !BLOCKED_HEADERS.has(key) && !isProxyHeader(key))) copied[key] = value;
  }
  return copied;
}

const isProxyHeader = (key: string) => PROXY_HEADERS.has(key) || PROXY_PREFIXES.some((prefix) => key.startsWith(prefix));

/** What a new run's configuration is made from. */
export interface RunConfigParts {
  readonly runId: string;
  readonly threadId: string;
  readonly graphId: string;
  readonly assistant: { readonly assistant_id: string; readonly config: JsonObject; readonly metadata: JsonObject };
  /** The thread's config and metadata as the run finds them (its metadata stamped with the graph and assistant). */
  readonly thread: { readonly config: JsonObject; readonly metadata: JsonObject };
  /** The run's own `config`, `metadata` and the headers it copies (configurableHeaders). */
  readonly config: JsonObject;
  readonly metadata: JsonObject;
  readonly headers: JsonObject;
}

/**
 * A run's `metadata` and `kwargs.config`, as the real server's `runs.put` fills them: metadata is
 * the assistant's, then the thread's, then the run's own; config is the assistant's laid under the
 * run's, its `configurable` the assistant's, the thread's, the run's (headers included), then the
 * run, thread, graph and assistant ids; and the config carries the metadata too.
 */
export function runConfiguration(parts: RunConfigParts): { readonly metadata: JsonObject; readonly config: JsonObject } {
  const metadata = { ...parts.assistant.metadata, ...parts.thread.metadata, ...parts.metadata };
  const configurable = {
    ...objectAt(parts.assistant.config, "configurable"),
    ...objectAt(parts.thread.config, "configurable"),
    ...objectAt(parts.config, "configurable"),
    ...parts.headers,
    run_id: parts.runId,
    thread_id: parts.threadId,
    graph_id: parts.graphId,
    assistant_id: parts.assistant.assistant_id,
  };
  return { metadata, config: { ...parts.assistant.config, ...parts.config, configurable, metadata } };
}

/**
 * What a checkpoint's metadata takes from its run's config, as the real server's checkpointer
 * writes it: the configurable's entries but its internal ones (`__*`) and the checkpoint's and
 * run's own ids, which the run's metadata names anyway.
 */
export function checkpointMetadataOf(config: JsonValue | undefined): JsonObject {
  const configurable = isObject(config) ? objectAt(config, "configurable") : {};
  return Object.fromEntries(Object.entries(configurable).filter(([key]) => !key.startsWith("__") && !CHECKPOINT_OWN_KEYS.has(key)));
}

const CHECKPOINT_OWN_KEYS = new Set(["checkpoint_ns", "checkpoint_id", "run_id", "thread_id"]);

function objectAt(object: JsonObject, key: string): JsonObject {
  const value = object[key];
  return isObject(value) ? value : {};
}

const isObject = (value: JsonValue | undefined): value is JsonObject => value !== null && typeof value === "object" && !Array.isArray(value);
