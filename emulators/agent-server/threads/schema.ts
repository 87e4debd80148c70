import { z } from "zod";
import { JsonObjectSchema, type JsonObject } from "../../shared/pydantic/json.ts";
import { float } from "../../shared/pydantic/number.ts";
import { optionalBody, optionalField } from "../../shared/pydantic/optional.ts";
import { notEmulated } from "../../shared/pydantic/value-error.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import type { ThreadValues } from "../graphs/graph.ts";

/**
 * A thread's `ttl`, typed as the API types it (`strategy` "delete" or, since the 2026 document,
 * "keep_latest"; `ttl` minutes as a number),
 * so a malformed one is a 422; minutes must be positive (a thread swept before it is answered is
 * no thread). The state object's alarm sweeps the thread once they have passed (threads/ttl.ts).
 */
export const ThreadTtl = z.object({
  strategy: optionalField(z.enum(["delete", "keep_latest"])),
  ttl: optionalField(
    float().refine((minutes) => minutes > 0, { message: "Value error, ttl must be a positive number of minutes", params: { type: "value_error" } }),
  ),
});

/**
 * ThreadSuperstepUpdate: values written as `as_node` would have (threads/supersteps.ts). A
 * `command` is refused rather than ignored: ignoring it would write another state than asked.
 */
const ThreadSuperstepUpdate = z.object({
  values: optionalField(z.union([JsonObjectSchema, z.array(z.unknown())])),
  command: notEmulated("command is not supported in supersteps by the agent-server emulator; send the update as values"),
  as_node: z.string(),
});

/** A superstep: one checkpoint, from one update or more (LangGraph refuses none). */
const ThreadSuperstep = z.object({
  updates: z.array(ThreadSuperstepUpdate).min(1),
});

/** ThreadCreate (POST /threads); `supersteps` pre-fill the new thread's state (threads/supersteps.ts). */
export const ThreadCreate = optionalBody(
  z.object({
    thread_id: optionalField(uuid()),
    metadata: optionalField(JsonObjectSchema),
    if_exists: optionalField(z.enum(["raise", "do_nothing"])),
    ttl: optionalField(ThreadTtl),
    supersteps: optionalField(z.array(ThreadSuperstep)),
  }),
);
export type ThreadCreate = z.output<typeof ThreadCreate>;

/** ThreadPruneRequest (POST /threads/prune): the threads to prune, and how (default: delete them). */
export const ThreadPruneRequest = z.object({
  thread_ids: z.array(uuid()),
  strategy: optionalField(z.enum(["delete", "keep_latest"])).transform((strategy) => strategy ?? "delete"),
});

/**
 * `?include=` on GET /threads/{thread_id}: extra fields, comma-separated, or one parameter each (as
 * the official client 1.15 sends its `include` list); `ttl` is the one there is.
 */
export const ThreadIncludeQuery = z.object({
  include: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) => new Set([value ?? []].flat().flatMap((text) => text.split(",").map((field) => field.trim())))),
});

export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";

/** The Thread resource. */
export interface Thread {
  readonly thread_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  /** When the thread's state last changed: its latest checkpoint's time (the 2026 document). */
  readonly state_updated_at: string;
  readonly metadata: JsonObject;
  readonly status: ThreadStatus;
  readonly config: JsonObject;
  readonly values: ThreadValues;
  readonly interrupts: JsonObject;
}
