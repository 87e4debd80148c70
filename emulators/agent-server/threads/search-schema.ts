import { z } from "zod";
import { JsonObjectSchema } from "../../shared/pydantic/json.ts";
import { optionalBody, optionalField } from "../../shared/pydantic/optional.ts";
import { bodyPaging } from "../../shared/pydantic/paging.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { valueError } from "../../shared/pydantic/value-error.ts";
import { EXTRACT_ROOTS, MAX_EXTRACTS, parseExtractPath } from "./extract.ts";
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

/** What `select` may name: the 2026 document's fields, and `context`, which older clients still send. */
export const THREAD_FIELDS = [
  "thread_id",
  "created_at",
  "updated_at",
  "state_updated_at",
  "metadata",
  "config",
  "context",
  "status",
  "values",
  "interrupts",
] as const;

/** `extract`: at most MAX_EXTRACTS aliases, each a path from one of the thread's JSON columns (extract.ts). */
const Extract = z.record(z.string(), z.string()).superRefine((aliases, ctx) => {
  if (Object.keys(aliases).length > MAX_EXTRACTS) ctx.addIssue(valueError(`extract takes at most ${MAX_EXTRACTS} aliases`));
  for (const [alias, path] of Object.entries(aliases)) {
    if (!parseExtractPath(path))
      ctx.addIssue(valueError(`Invalid extract path '${path}': it must start with ${EXTRACT_ROOTS.join(", ")} (e.g. values.messages[-1])`, [alias]));
  }
});

/** ThreadSearchRequest (POST /threads/search). */
export const ThreadSearch = optionalBody(
  ThreadFilter.extend({
    ids: optionalField(z.array(uuid())),
    ...bodyPaging({ maxLimit: 1000, defaultLimit: 10 }),
    sort_by: optionalField(z.enum(["thread_id", "status", "created_at", "updated_at", "state_updated_at"])),
    sort_order: optionalField(z.enum(["asc", "desc"])),
    select: optionalField(z.array(z.enum(THREAD_FIELDS))),
    extract: optionalField(Extract),
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
