import { isObject } from "./envelope.ts";

/**
 * Which events a connection (SSE) or a subscription (WebSocket) receives: channels, namespace
 * prefixes and depth, matched as the official client matches them (`matchesSubscription` in
 * @langchain/langgraph-sdk 1.15, after the real server's `protocol/namespace.py`).
 */
export interface EventFilter {
  readonly channels: readonly string[];
  /** Prefixes an event's namespace must start with; every namespace when absent. */
  readonly namespaces?: readonly (readonly string[])[] | undefined;
  /** How far below a prefix an event may be; unbounded when absent. */
  readonly depth?: number | undefined;
}

/** The ProtocolChannel enum of the 2026 description, besides `custom:<name>`. */
export const CHANNELS = ["values", "updates", "messages", "tools", "lifecycle", "input", "tasks", "custom"] as const;

/** The channel an event travels on, by its method; undefined for a method no channel carries. */
export function channelOf(method: string, data: unknown): string | undefined {
  if (method === "input.requested" || method === "input.answered") return "input";
  if (method === "custom") return isObject(data) && typeof data.name === "string" ? `custom:${data.name}` : "custom";
  return (CHANNELS as readonly string[]).includes(method) ? method : undefined;
}

/** Whether an event of `method` with `data` in `namespace` passes `filter`. */
export function matches(filter: EventFilter, method: string, namespace: readonly string[], data: unknown): boolean {
  const channel = channelOf(method, data);
  if (channel === undefined) return false;
  if (!filter.channels.includes(channel) && !(channel.startsWith("custom:") && filter.channels.includes("custom"))) return false;
  if (!filter.namespaces || filter.namespaces.length === 0) return true;
  return filter.namespaces.some((prefix) => startsWith(namespace, prefix) && (filter.depth === undefined || namespace.length - prefix.length <= filter.depth));
}

/** A namespace prefix match; a prefix segment without `:` also matches a segment's `name:<suffix>`. */
function startsWith(namespace: readonly string[], prefix: readonly string[]): boolean {
  if (prefix.length > namespace.length) return false;
  return prefix.every((segment, i) => {
    const candidate = namespace[i]!;
    if (candidate === segment) return true;
    return !segment.includes(":") && candidate.split(":")[0] === segment;
  });
}

/**
 * Reads a filter (`{channels, namespaces?, depth?}`, ProtocolEventStreamRequest and
 * SubscribeParams) and, for the SSE stream, `since`. A refusal says what is wrong, in words a
 * client can act on.
 */
export function readFilter(
  value: unknown,
): { readonly ok: true; readonly filter: EventFilter; readonly since: number | undefined } | { readonly ok: false; readonly message: string } {
  if (!isObject(value)) return { ok: false, message: "The body must be a JSON object {channels, namespaces?, depth?, since?}." };
  const { channels, namespaces, depth, since } = value;
  if (!Array.isArray(channels) || channels.length === 0) return { ok: false, message: "`channels` must be a non-empty list of channels." };
  const unknown = channels.find((c) => typeof c !== "string" || !(CHANNELS.includes(c as never) || /^custom:.+$/.test(c)));
  if (unknown !== undefined) return { ok: false, message: `Unknown channel ${JSON.stringify(unknown)}: one of ${CHANNELS.join(", ")}, or custom:<name>.` };
  if (
    namespaces !== undefined &&
    namespaces !== null &&
    !(Array.isArray(namespaces) && namespaces.every((ns) => Array.isArray(ns) && ns.every((s) => typeof s === "string")))
  ) {
    return { ok: false, message: "`namespaces` must be a list of namespaces, each a list of strings." };
  }
  if (depth !== undefined && depth !== null && !(Number.isSafeInteger(depth) && (depth as number) >= 0))
    return { ok: false, message: "`depth` must be a non-negative integer." };
  if (since !== undefined && since !== null && !(Number.isSafeInteger(since) && (since as number) >= 0))
    return { ok: false, message: "`since` must be a non-negative integer." };
  return {
    ok: true,
    filter: {
      channels: channels as string[],
      ...(Array.isArray(namespaces) ? { namespaces: namespaces as string[][] } : {}),
      ...(typeof depth === "number" ? { depth } : {}),
    },
    since: typeof since === "number" ? since : undefined,
  };
}
