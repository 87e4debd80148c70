/*
 * How the gateway reads what a client sends on a socket it relays (docs/rules.md, "WebSockets").
 * A socket is a request that goes on: every call it carries is counted like the HTTP request it
 * stands for, so the relay reads each client frame before the upstream does. What cannot be read
 * never passes uncounted: it is refused in-band (counted) or ends the socket (nothing passes).
 */
import { MAX_JSON_DEPTH, nestsDeeperThan } from "./json-depth.ts";

/**
 * The largest command frame relayed, in UTF-8 bytes: Cloudflare's documented maximum WebSocket
 * message. A larger frame ends the socket (1009) rather than being buffered whole to be read.
 */
export const MAX_FRAME_BYTES = 1024 * 1024;

/** Close codes the relay ends a socket with (RFC 6455 section 7.4.1; 4xxx: 4000 + the HTTP status, as the agent server's). */
export const CLOSE = {
  /** A binary frame on a protocol whose commands are JSON text. */
  unsupportedData: 1003,
  /** More client frames waiting to be counted than the relay holds. */
  policyViolation: 1008,
  /** A frame over MAX_FRAME_BYTES. */
  tooBig: 1009,
  /** The relay failed (the upstream's socket errored). */
  internalError: 1011,
  /** The socket's slot among its identity's open sockets was lost (its lease lapsed): it may no longer be held. */
  tryAgainLater: 1013,
  /** Nothing crossed the socket for the idle timeout. */
  idle: 4408,
  /** A frame of a socket whose frames count as calls (`frames`) met an exhausted counter. */
  quotaExceeded: 4429,
} as const;

/** What one client frame of agent protocol v2 is to the relay. */
export type CommandFrame =
  /** JSON text: a call, counted and then forwarded as sent. `id` is the envelope's, for a refusal's answer (null when it has none). */
  | { readonly kind: "call"; readonly id: number | null }
  /** Text that is not JSON, or nests deeper than MAX_JSON_DEPTH: counted, then answered in-band `invalid_argument`, never forwarded. */
  | { readonly kind: "unreadable"; readonly message: string }
  /** The socket ends with this code: a binary or oversized frame. Nothing is forwarded. */
  | { readonly kind: "end"; readonly code: number; readonly reason: string };

/**
 * Reads a client frame of agent protocol v2, whose commands are JSON text frames `{id, method,
 * params}`. Any JSON text is a call, however well formed its envelope: the upstream answers a bad
 * envelope itself, as it does over HTTP, where the POST is counted before its body is read.
 *
 * @example
 * readCommandFrame('{"id":3,"method":"run.start","params":{}}') // { kind: "call", id: 3 }
 * readCommandFrame(new ArrayBuffer(4)) // { kind: "end", code: 1003, ... }
 */
export function readCommandFrame(data: string | ArrayBuffer): CommandFrame {
  if (typeof data !== "string") return { kind: "end", code: CLOSE.unsupportedData, reason: "Commands are JSON text frames; binary frames are not accepted." };
  if (utf8LengthOver(data, MAX_FRAME_BYTES)) return { kind: "end", code: CLOSE.tooBig, reason: `A frame may carry at most ${MAX_FRAME_BYTES} bytes.` };
  if (nestsDeeperThan(data, MAX_JSON_DEPTH))
    return { kind: "unreadable", message: `A command is a JSON text frame {id, method, params}, nested at most ${MAX_JSON_DEPTH} deep.` };
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return { kind: "unreadable", message: "A command is a JSON text frame {id, method, params}; this frame is not JSON." };
  }
  return { kind: "call", id: envelopeId(value) };
}

/** The command id a refusal names: the envelope's when it is a non-negative integer (the description's ProtocolError). */
function envelopeId(value: unknown): number | null {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  return typeof id === "number" && Number.isSafeInteger(id) && id >= 0 ? id : null;
}

/** Whether `text` is longer than `limit` bytes in UTF-8, encoding it only when its length cannot tell. */
function utf8LengthOver(text: string, limit: number): boolean {
  // Each UTF-16 unit is 1 to 3 UTF-8 bytes.
  if (text.length > limit) return true;
  if (text.length * 3 <= limit) return false;
  return new TextEncoder().encode(text).byteLength > limit;
}
