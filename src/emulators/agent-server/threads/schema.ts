import { z } from "zod";
import { JsonObjectSchema as JsonObject, optionalBody, optionalField, type JsonObject as JsonDocument } from "../json.ts";
import type { ThreadValues } from "../graphs/graph.ts";

/**
 * ThreadCreate (POST /threads). `ttl` is accepted and ignored (threads are never swept);
 * `supersteps` (pre-filled state) is refused rather than ignored, since ignoring it would hand
 * back a thread without the state the client asked for.
 */
export const ThreadCreate = optionalBody(z.object({
  thread_id: optionalField(z.guid().transform((id) => id.toLowerCase())),
  metadata: optionalField(JsonObject),
  if_exists: optionalField(z.enum(["raise", "do_nothing"])),
  ttl: z.unknown().optional(),
  supersteps: z
    .unknown()
    .refine((v) => v === undefined || v === null || (Array.isArray(v) && v.length === 0), {
      message: "supersteps is not supported by the agent-server emulator; create the thread empty and start a run instead",
    })
    .optional(),
}));
export type ThreadCreate = z.output<typeof ThreadCreate>;

export type ThreadStatus = "idle" | "busy" | "interrupted" | "error";

/** The Thread resource. */
export interface Thread {
  readonly thread_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly metadata: JsonDocument;
  readonly status: ThreadStatus;
  readonly config: JsonDocument;
  readonly values: ThreadValues;
  readonly interrupts: JsonDocument;
}
