import { z } from "zod";
import { JsonObjectSchema, type JsonObject } from "../../shared/pydantic/json.ts";
import { optionalBody, optionalField } from "../../shared/pydantic/optional.ts";
import { bodyPaging } from "../../shared/pydantic/paging.ts";
import { queryBoolean, queryInteger } from "../../shared/pydantic/query.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { ConfigSchema } from "../config-field.ts";

/** AssistantCreate (POST /assistants). Unknown fields are ignored, as pydantic does. */
export const AssistantCreate = z.object({
  graph_id: z.string(),
  assistant_id: optionalField(uuid()),
  config: optionalField(ConfigSchema),
  context: optionalField(JsonObjectSchema),
  metadata: optionalField(JsonObjectSchema),
  if_exists: optionalField(z.enum(["raise", "do_nothing"])),
  name: optionalField(z.string()),
  description: optionalField(z.string()),
});
export type AssistantCreate = z.output<typeof AssistantCreate>;

/**
 * AssistantPatch (PATCH /assistants/{id}). Each field given replaces that field of the active
 * version whole (no deep merge); a field left out keeps the active version's value; `metadata`
 * is merged key by key, as the API describes it.
 */
export const AssistantPatch = optionalBody(
  z.object({
    graph_id: optionalField(z.string()),
    config: optionalField(ConfigSchema),
    context: optionalField(JsonObjectSchema),
    metadata: optionalField(JsonObjectSchema),
    name: optionalField(z.string()),
    description: optionalField(z.string()),
  }),
);
export type AssistantPatch = z.output<typeof AssistantPatch>;

/** AssistantVersionChange (POST /assistants/{id}/latest). */
export const AssistantVersionChange = optionalBody(z.object({ version: optionalField(z.int()) }));
/** The OpenAPI description also lists `version` as a query parameter: accepted when the body has none. */
export const AssistantVersionQuery = z.object({ version: queryInteger(z.int()).optional() });

/** The API's bounds on `limit` and `offset` in its search bodies. */
const paging = bodyPaging({ maxLimit: 1000, defaultLimit: 10 });

/** AssistantVersionsSearchRequest (POST /assistants/{id}/versions). */
export const AssistantVersionsSearch = optionalBody(z.object({ metadata: optionalField(JsonObjectSchema), ...paging }));
export type AssistantVersionsSearch = z.output<typeof AssistantVersionsSearch>;

export const ASSISTANT_FIELDS = [
  "assistant_id",
  "graph_id",
  "name",
  "description",
  "config",
  "context",
  "created_at",
  "updated_at",
  "metadata",
  "version",
] as const;
export type AssistantField = (typeof ASSISTANT_FIELDS)[number];

/** AssistantCountRequest (POST /assistants/count). */
const AssistantFilter = z.object({
  metadata: optionalField(JsonObjectSchema),
  graph_id: optionalField(z.string()),
  name: optionalField(z.string()),
});
export type AssistantFilter = z.output<typeof AssistantFilter>;
export const AssistantCount = optionalBody(AssistantFilter);

/** AssistantSearchRequest (POST /assistants/search). */
export const AssistantSearch = optionalBody(
  AssistantFilter.extend({
    ...paging,
    sort_by: optionalField(z.enum(["assistant_id", "created_at", "updated_at", "name", "graph_id"])),
    sort_order: optionalField(z.enum(["asc", "desc"])),
    select: optionalField(z.array(z.enum(ASSISTANT_FIELDS))),
  }),
);
export type AssistantSearch = z.output<typeof AssistantSearch>;

/** `?delete_threads=` on DELETE /assistants/{id}: the strings pydantic reads as booleans. */
export const DeleteAssistantQuery = z.object({ delete_threads: queryBoolean() });

/** The Assistant resource (the active version of an assistant). */
export interface Assistant {
  readonly assistant_id: string;
  readonly graph_id: string;
  readonly config: JsonObject;
  readonly context: JsonObject;
  readonly metadata: JsonObject;
  readonly version: number;
  readonly name: string;
  readonly description: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/**
 * One stored version of an assistant (the items of POST /assistants/{id}/versions), an Assistant
 * as that version made it: a version never changes, so its `updated_at` is its `created_at`.
 */
export type AssistantVersion = Assistant;
