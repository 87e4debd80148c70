import type { Context } from "hono";
import { readJsonBody } from "../../shared/request-body.ts";

/** JSON-RPC 2.0's error codes (jsonrpc.org/specification#error_object), as MCP and A2A use them. */
export const RPC_ERRORS = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
} as const;

/** A request id: JSON-RPC allows a string or a number, and the answer echoes it as sent. */
export type RpcId = string | number;

export interface RpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** What one POSTed JSON-RPC message is: a request (id and method), a notification (method only), or a response (id only). */
export type RpcMessage =
  | { readonly kind: "request"; readonly id: RpcId; readonly method: string; readonly params: Record<string, unknown> }
  | { readonly kind: "notification"; readonly method: string }
  | { readonly kind: "response"; readonly id: RpcId };

/** A message the transport refuses before any method runs (HTTP 400, or 413 for a body over the size bound), with the JSON-RPC error it is. */
export interface RpcRefusal {
  readonly status: 400 | 413;
  readonly error: RpcError;
}

/**
 * Reads one JSON-RPC 2.0 message from a POST body, with the emulators' one body reader
 * (shared/request-body.ts: its size and depth bounds), whatever the content type. A body that
 * reader refuses (not JSON, not UTF-8, nested too deep, too large) is a parse error; anything but
 * one object with `"jsonrpc": "2.0"`, a string `method` where there is one, a string or integer
 * `id` where there is one and object `params` is an invalid request. Batches (arrays) are
 * refused: MCP dropped them in 2025-06-18 and A2A never had them.
 */
export async function readRpcMessage(c: Context): Promise<RpcMessage | RpcRefusal> {
  const body = await readJsonBody(c, { anyContentType: true });
  if (!body.ok || body.value === undefined) {
    const why = !body.ok && body.status !== 422 ? body.detail : "the body is not JSON.";
    return { status: !body.ok && body.status === 413 ? 413 : 400, error: { code: RPC_ERRORS.parseError, message: `Parse error: ${why}` } };
  }
  const value = body.value;
  const invalid = (why: string): RpcRefusal => ({ status: 400, error: { code: RPC_ERRORS.invalidRequest, message: `Invalid request: ${why}` } });
  if (Array.isArray(value)) return invalid("send one JSON-RPC message per request; batches are not supported.");
  if (value === null || typeof value !== "object") return invalid("the body must be a JSON-RPC 2.0 message (a JSON object).");
  const message = value as Record<string, unknown>;
  if (message.jsonrpc !== "2.0") return invalid('"jsonrpc" must be "2.0".');
  const { id, method, params } = message;
  const hasId = id !== undefined && id !== null;
  if (hasId && typeof id !== "string" && !Number.isInteger(id)) return invalid('"id" must be a string or an integer.');
  if (method !== undefined && typeof method !== "string") return invalid('"method" must be a string.');
  if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))) return invalid('"params" must be an object.');
  if (hasId && method !== undefined) return { kind: "request", id: id as RpcId, method, params: (params ?? {}) as Record<string, unknown> };
  if (method !== undefined) return { kind: "notification", method };
  if (hasId && ("result" in message || "error" in message)) return { kind: "response", id: id as RpcId };
  return invalid("a message is a request (id and method), a notification (method) or a response (id and result or error).");
}

/** Whether `accept` (an Accept header) admits `mediaType`, wildcards included. */
export function accepts(accept: string | undefined, mediaType: string): boolean {
  const [type] = mediaType.split("/");
  return (accept ?? "").split(",").some((range) => {
    const candidate = range.split(";")[0]!.trim().toLowerCase();
    return candidate === mediaType || candidate === "*/*" || candidate === `${type}/*`;
  });
}

/** A JSON-RPC answer to a request: HTTP 200 with its result or its error, the id echoed. */
export function rpcAnswer(c: Context, id: RpcId, outcome: { result: unknown } | { error: RpcError }): Response {
  return c.json({ jsonrpc: "2.0", id, ...outcome }, 200);
}

/**
 * A refusal at the HTTP level (400, 405, ...): the emulator's `{"detail": ...}` for every error,
 * with the JSON-RPC error object (`id: null`) beside it, as JSON-RPC answers a message it could not
 * read, so a JSON-RPC client finds the code it expects.
 */
export function httpRefusal(c: Context, status: 400 | 404 | 405 | 413, detail: string, error?: RpcError): Response {
  return c.json({ detail, ...(error ? { jsonrpc: "2.0", id: null, error } : {}) }, status);
}
