import { z } from "zod";
import type { ValidationError } from "../../../src/http/fastapi-errors.ts";
import { queryBoolean, queryChoices, queryInteger } from "../../shared/pydantic/query.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { STREAM_MODES } from "./execute.ts";
import { CANCEL_ACTIONS, RUN_STATUSES } from "./schema.ts";

/** The Run fields `select` can ask for (the document's enum). */
export const RUN_FIELDS = ["run_id", "thread_id", "assistant_id", "created_at", "updated_at", "status", "metadata", "kwargs", "multitask_strategy"] as const;

/**
 * GET /threads/{thread_id}/runs: `limit` (default 10), `offset`, `status`, and `select` (the
 * parameter repeated, as FastAPI reads a list, or one JSON list, as the JS client sends it): only
 * those fields are answered.
 */
export const RunListQuery = z.object({
  limit: queryInteger(z.int().min(1)).default(10),
  offset: queryInteger(z.int().min(0)).default(0),
  status: z.enum(RUN_STATUSES).optional(),
  select: queryChoices(RUN_FIELDS),
});

/** POST .../cancel and POST /runs/cancel: `wait` (a boolean as pydantic reads one) and `action`. */
export const CancelQuery = z.object({
  wait: queryBoolean(),
  action: z.enum(CANCEL_ACTIONS).default("interrupt"),
});

/** GET .../join: whether the run is cancelled if the client hangs up. */
export const JoinQuery = z.object({
  cancel_on_disconnect: queryBoolean(),
});

/**
 * A `stream_mode` query value as the official client sends it: one mode, or a JSON list of modes
 * (`["values","updates"]`), as the real server's `parse_stream_mode_param` reads it.
 */
const streamModeParam = queryChoices(STREAM_MODES).transform((modes) => modes ?? []);

/** GET .../runs/{run_id}/stream: `stream_mode` (a subset of the run's) and `cancel_on_disconnect`. */
export const JoinStreamQuery = z.object({
  stream_mode: streamModeParam,
  cancel_on_disconnect: queryBoolean(),
});

/** What GET /threads/{thread_id}/stream shows. */
export const THREAD_STREAM_MODES = ["lifecycle", "run_modes", "state_update"] as const;

/** Thread stream modes: one, a comma-separated list or a JSON list, each checked (loc: its index). */
const threadStreamModes = queryChoices(THREAD_STREAM_MODES, { commas: true });

/**
 * GET /threads/{thread_id}/stream: `stream_modes` as the document names it, or `stream_mode` as
 * the official client sends it; one mode, a comma-separated list or a JSON list. A mode the
 * document does not list is a 422 at `["query", <name>, <index>]`.
 */
export const ThreadStreamQuery = z
  .object({ stream_modes: threadStreamModes, stream_mode: threadStreamModes })
  .transform(({ stream_modes, stream_mode }) => stream_modes ?? stream_mode ?? []);

/** Where a stream resumes: after an event id, from the start, or (absent) as the endpoint decides. */
export type LastEventId = { readonly ok: true; readonly after: number | undefined } | { readonly ok: false; readonly error: ValidationError };

/**
 * The `Last-Event-ID` header: an event id the emulator wrote (`id: <n>`), or `-1` / `-` for
 * "from the first event", as the document spells it for run and thread streams. Anything else is a
 * 422: it cannot be an id of this emulator's streams.
 */
export function readLastEventId(header: string | undefined): LastEventId {
  const text = header?.trim() ?? "";
  if (text === "") return { ok: true, after: undefined };
  if (text === "-1" || text === "-") return { ok: true, after: 0 };
  if (/^\d+$/.test(text)) return { ok: true, after: Number(text) };
  return {
    ok: false,
    error: {
      type: "value_error",
      loc: ["header", "Last-Event-ID"],
      msg: "Value error, expected an event id from this stream (the number after 'id:'), or -1 for the first event",
      input: text,
    },
  };
}

/** The path of GET /runs/{run_id}/stream: a run id alone (the run's thread is looked up). */
export const RunIdOnlyParam = z.object({ run_id: uuid() });
