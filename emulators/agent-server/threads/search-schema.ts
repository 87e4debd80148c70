import { z } from "zod";
import { JsonObjectSchema } from "../../shared/pydantic/json.ts";
import { optionalBody, optionalField } from "../../shared/pydantic/optional.ts";
import { bodyPaging } from "../../shared/pydantic/paging.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { ThreadTtl } from "./schema.ts";

const STATUSES = ["idle", "busy", "interrupted", "error"] as const;

/** ThreadCountRequest (POST /threads/count): every filter given must match. */
const ThreadFilter = z.object({
  metadata: optionalField(JsonObjectSchema),
  values: optionalField(JsonObjectSchema),
  status: optionalField(z.enum(STATUSES)),
});
export const ThreadCount = optionalBody(ThreadFilter);
export type ThreadFilter = z.output<typeof ThreadFilter>;

export const THREAD_FIELDS = ["thread_id", "created_at", "updated_at", "metadata", "config", "context", "status", "values", "interrupts"] as const;

/** ThreadSearchRequest (POST /threads/search). */
export const ThreadSearch = optionalBody(
  ThreadFilter.extend({
    ids: optionalField(z.array(uuid())),
    ...bodyPaging({ maxLimit: 1000, defaultLimit: 10 }),
    sort_by: optionalField(z.enum(["thread_id", "status", "created_at", "updated_at"])),
    sort_order: optionalField(z.enum(["asc", "desc"])),
    select: optionalField(z.array(z.enum(THREAD_FIELDS))),
  }),
);
export type ThreadSearch = z.output<typeof ThreadSearch>;

/**
 * ThreadPatch (PATCH /threads/{thread_id}): `metadata` is merged into the thread's, key by key;
 * `ttl` (as on POST /threads) sets the thread's TTL anew, from now.
 */
export const ThreadPatch = optionalBody(
  z.object({
    metadata: optionalField(JsonObjectSchema),
    ttl: optionalField(ThreadTtl),
  }),
);
export type ThreadPatch = z.output<typeof ThreadPatch>;
