import { z } from "zod";
import { JsonObjectSchema, optionalBody, optionalField, type JsonObject } from "../json.ts";

/** AssistantCreate (POST /assistants). Unknown fields are ignored, as pydantic does. */
export const AssistantCreate = z.object({
  graph_id: z.string(),
  assistant_id: optionalField(z.guid().transform((id) => id.toLowerCase())),
  config: optionalField(JsonObjectSchema),
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
export const AssistantPatch = optionalBody(z.object({
  graph_id: optionalField(z.string()),
  config: optionalField(JsonObjectSchema),
  context: optionalField(JsonObjectSchema),
  metadata: optionalField(JsonObjectSchema),
  name: optionalField(z.string()),
  description: optionalField(z.string()),
}));
export type AssistantPatch = z.output<typeof AssistantPatch>;

/** AssistantVersionChange (POST /assistants/{id}/latest). */
export const AssistantVersionChange = optionalBody(z.object({ version: optionalField(z.int()) }));
/** The OpenAPI description also lists `version` as a query parameter: accepted when the body has none. */
export const AssistantVersionQuery = z.object({ version: optionalField(z.coerce.number().int()) });

const limit = z.int().min(1).max(1000).nullish().transform((v) => v ?? 10);
const offset = z.int().min(0).nullish().transform((v) => v ?? 0);

/** AssistantVersionsSearchRequest (POST /assistants/{id}/versions). */
export const AssistantVersionsSearch = optionalBody(z.object({ metadata: optionalField(JsonObjectSchema), limit, offset }));
export type AssistantVersionsSearch = z.output<typeof AssistantVersionsSearch>;

export const ASSISTANT_FIELDS = ["assistant_id", "graph_id", "name", "description", "config", "context", "created_at", "updated_at", "metadata", "version"] as const;
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
export const AssistantSearch = optionalBody(AssistantFilter.extend({
  limit,
  offset,
  sort_by: optionalField(z.enum(["assistant_id", "created_at", "updated_at", "name", "graph_id"])),
  sort_order: optionalField(z.enum(["asc", "desc"])),
  select: optionalField(z.array(z.enum(ASSISTANT_FIELDS))),
}));
export type AssistantSearch = z.output<typeof AssistantSearch>;

/** `?delete_threads=` on DELETE /assistants/{id}: the strings pydantic reads as booleans. */
export const DeleteAssistantQuery = z.object({
  delete_threads: z
    .preprocess((v) => {
      if (typeof v !== "string") return v;
      const text = v.toLowerCase();
      if (["true", "1", "yes", "on", "t", "y"].includes(text)) return true;
      if (["false", "0", "no", "off", "f", "n"].includes(text)) return false;
      return v;
    }, z.boolean())
    .optional()
    .transform((v) => v ?? false),
});

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

/** One stored version of an assistant (the items of POST /assistants/{id}/versions): no `updated_at`, a version never changes. */
export type AssistantVersion = Omit<Assistant, "updated_at">;
