/**
 * Protocol v2's envelopes, as the 2026 description ("Streaming" tag: ProtocolCommand,
 * ProtocolSuccess, ProtocolError, ProtocolEvent) and `@langchain/protocol` define them: a command
 * `{id, method, params}`, its answer `{type: "success" | "error", id, ...}` with
 * `meta.applied_through_seq`, and an event `{type: "event", event_id, seq, method, params}`.
 */

/** The error codes a ProtocolError may carry (the description's enum). */
export type ProtocolErrorCode =
  | "invalid_argument"
  | "unknown_command"
  | "unknown_error"
  | "no_such_run"
  | "no_such_subscription"
  | "no_such_namespace"
  | "no_such_interrupt"
  | "no_such_checkpoint"
  | "permission_denied"
  | "not_supported";

/** A command as a client sends it. */
export interface ProtocolCommand {
  readonly id: number;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export interface ProtocolSuccess {
  readonly type: "success";
  readonly id: number;
  readonly result: Record<string, unknown>;
  readonly meta: { readonly applied_through_seq: number };
}

export interface ProtocolError {
  readonly type: "error";
  /** Null when the envelope could not be read far enough to find its id. */
  readonly id: number | null;
  readonly error: ProtocolErrorCode;
  readonly message: string;
  readonly meta?: { readonly applied_through_seq: number };
}

export type ProtocolAnswer = ProtocolSuccess | ProtocolError;

/** A server -> client event; its `seq` is also its SSE `id:` and (as a string) its `event_id`. */
export interface ProtocolEvent {
  readonly type: "event";
  readonly event_id: string;
  readonly seq: number;
  readonly method: string;
  readonly params: { readonly namespace: readonly string[]; readonly timestamp: number; readonly data: unknown };
}

/** What a method's handler returns: its result, or a refusal in the protocol's own words. */
export type CommandResult =
  { readonly ok: true; readonly result: Record<string, unknown> } | { readonly ok: false; readonly error: ProtocolErrorCode; readonly message: string };

export const done = (result: Record<string, unknown> = {}): CommandResult => ({ ok: true, result });
export const refused = (error: ProtocolErrorCode, message: string): CommandResult => ({ ok: false, error, message });

/** The answer to command `id` with `outcome`, stamped with the highest seq the thread has buffered. */
export function answerOf(id: number, outcome: CommandResult, appliedThroughSeq: number): ProtocolAnswer {
  const meta = { applied_through_seq: appliedThroughSeq };
  return outcome.ok ? { type: "success", id, result: outcome.result, meta } : { type: "error", id, error: outcome.error, message: outcome.message, meta };
}

/**
 * Reads a command envelope: `id` a non-negative integer, `method` a string, `params` an object
 * (absent means `{}`). A malformed envelope is an `invalid_argument` error carrying the id when
 * one could be read, null otherwise (the description's ProtocolError).
 */
export function readCommand(value: unknown): { readonly ok: true; readonly command: ProtocolCommand } | { readonly ok: false; readonly answer: ProtocolError } {
  const bad = (id: number | null, message: string) => ({
    ok: false as const,
    answer: { type: "error" as const, id, error: "invalid_argument" as const, message },
  });
  if (!isObject(value)) return bad(null, "A command is a JSON object {id, method, params}.");
  const id = Number.isSafeInteger(value.id) && (value.id as number) >= 0 ? (value.id as number) : null;
  if (id === null) return bad(null, "The command's `id` must be a non-negative integer.");
  if (typeof value.method !== "string" || value.method === "") return bad(id, "The command's `method` must be a non-empty string.");
  if (value.params !== undefined && value.params !== null && !isObject(value.params)) return bad(id, "The command's `params` must be an object.");
  return { ok: true, command: { id, method: value.method, params: (value.params as Record<string, unknown> | undefined) ?? {} } };
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
