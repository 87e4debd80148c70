import { z } from "zod";
import { JsonObjectSchema } from "../../shared/pydantic/json.ts";
import { optionalBody, optionalField } from "../../shared/pydantic/optional.ts";
import { queryBoolean, queryInteger } from "../../shared/pydantic/query.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";

/**
 * CheckpointConfig: a checkpoint named by `checkpoint_id` (the other fields are accepted as the
 * document types them). The official client sends a whole config where the document has one
 * (`{"configurable": {...}}`, history's `before`), so `configurable.checkpoint_id` is read too.
 */
export const CheckpointConfig = z
  .looseObject({
    thread_id: optionalField(z.string()),
    checkpoint_ns: optionalField(z.string()),
    checkpoint_id: optionalField(z.string()),
    checkpoint_map: optionalField(JsonObjectSchema),
    configurable: optionalField(z.looseObject({ checkpoint_id: optionalField(z.string()) })),
  })
  .transform((c) => c.checkpoint_id ?? c.configurable?.checkpoint_id);

/** GET /threads/{thread_id}/state/{checkpoint_id}. */
export const CheckpointParam = z.object({ thread_id: uuid(), checkpoint_id: uuid() });

/** `?subgraphs=`: accepted (the graphs have no subgraphs, so it changes nothing). */
export const SubgraphsQuery = z.object({ subgraphs: queryBoolean() });

/** ThreadStateCheckpointRequest (POST /threads/{thread_id}/state/checkpoint). */
export const ThreadStateCheckpointRequest = z.object({
  checkpoint: CheckpointConfig,
  subgraphs: optionalField(z.boolean()),
});

/**
 * ThreadStateUpdate (POST /threads/{thread_id}/state): `values` to write as `as_node`, after the
 * latest checkpoint or after `checkpoint` / `checkpoint_id` (what the official client sends), a fork.
 */
export const ThreadStateUpdate = optionalBody(
  z.object({
    values: optionalField(z.union([JsonObjectSchema, z.array(z.unknown())])),
    checkpoint: optionalField(CheckpointConfig),
    checkpoint_id: optionalField(z.string()),
    as_node: optionalField(z.string()),
  }),
);

/** ThreadStateSearch (POST /threads/{thread_id}/history): `limit` 1..1000 (default 1, as documented). */
export const ThreadStateSearch = optionalBody(
  z.object({
    limit: optionalField(z.int().min(1).max(1000)).transform((limit) => limit ?? 1),
    before: optionalField(CheckpointConfig),
    metadata: optionalField(JsonObjectSchema),
    checkpoint: optionalField(CheckpointConfig),
  }),
);

/** GET /threads/{thread_id}/history: `limit` (default 10) and `before`, a checkpoint id. */
export const HistoryQuery = z.object({
  limit: queryInteger(z.int().min(1).max(1000)).default(10),
  before: z.string().optional(),
});
