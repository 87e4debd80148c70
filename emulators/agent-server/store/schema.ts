import { z } from "zod";
import { JsonObjectSchema, type JsonObject } from "../../shared/pydantic/json.ts";
import { float } from "../../shared/pydantic/number.ts";
import { optionalBody, optionalField } from "../../shared/pydantic/optional.ts";
import { queryOptionalBoolean } from "../../shared/pydantic/query.ts";
import { valueError } from "../../shared/pydantic/value-error.ts";
import { unknownOperator } from "./filter.ts";
import { namespaceProblem } from "./namespace.ts";

/** A namespace in a request: a list of labels, each non-empty and without "." (a 422 at the bad label). */
const NamespaceSchema = z.array(z.string()).superRefine((namespace, ctx) => {
  const problem = namespaceProblem(namespace);
  if (problem) ctx.addIssue(valueError(problem[1], [problem[0]]));
});

/** Where an item is put: also not empty, and not under the root label LangGraph reserves. */
const ItemNamespace = NamespaceSchema.superRefine((namespace, ctx) => {
  if (namespace.length === 0) ctx.addIssue(valueError("Namespace cannot be empty."));
  else if (namespace[0] === "langgraph") ctx.addIssue(valueError('Root label for namespace cannot be "langgraph".', [0]));
});

/** `limit` and `offset` of the store's listings: the API documents defaults and no upper bound. */
const paging = (defaultLimit: number) => ({
  limit: optionalField(z.int().min(1)).transform((limit) => limit ?? defaultLimit),
  offset: optionalField(z.int().min(0)).transform((offset) => offset ?? 0),
});

/**
 * StorePutRequest (PUT /store/items). `ttl` is minutes until the item expires (none: it never
 * does); `index` (which fields a vector index embeds) is typed and not acted on: the emulator has
 * no vector index.
 */
export const StorePut = z.object({
  namespace: ItemNamespace,
  key: z.string(),
  value: JsonObjectSchema,
  index: optionalField(z.union([z.literal(false), z.array(z.string())])),
  ttl: optionalField(
    float().refine((minutes) => minutes > 0, { message: "Value error, ttl must be a positive number of minutes", params: { type: "value_error" } }),
  ),
});
export type StorePut = z.output<typeof StorePut>;

/** StoreDeleteRequest (DELETE /store/items): no namespace is the empty one, which holds nothing. */
export const StoreDelete = z.object({
  namespace: optionalField(NamespaceSchema),
  key: z.string(),
});

/**
 * The query of GET /store/items. `namespace` is one parameter with the labels joined by "." (as
 * the official clients send it) or, as the reference document lists it, one parameter per label;
 * optional, as the document gives it (absent: the empty namespace, where no item can be put, so
 * the answer is `null`).
 * `refresh_ttl` is a bool as pydantic reads one in a query (`true`/`false`, `1`/`0`, `yes`/`no`,
 * ...; anything else is `bool_parsing`), the store's default (refresh) when absent. A missing
 * `key` is the real server's 400, answered by the route.
 */
export const StoreGetQuery = z.object({
  namespace: z
    .union([z.string(), z.array(z.string())])
    .optional()
    .transform((value) => (value === undefined ? [] : typeof value === "string" ? value.split(".") : value))
    .pipe(NamespaceSchema),
  key: z.string().optional(),
  refresh_ttl: queryOptionalBoolean(),
});

/**
 * StoreSearchRequest (POST /store/items/search): items under `namespace_prefix` (none or `[]`: all)
 * whose value matches `filter` (filter.ts), most recently updated first. `query` asks for a
 * semantic search, which needs a vector index the emulator does not have: like a deployment
 * without `store.index`, it then does not rank (see docs/agent-server.md).
 */
export const StoreSearch = optionalBody(
  z.object({
    namespace_prefix: optionalField(NamespaceSchema),
    filter: optionalField(
      JsonObjectSchema.superRefine((filter, ctx) => {
        const unknown = unknownOperator(filter);
        if (unknown) ctx.addIssue(valueError(`Unsupported operator: ${unknown.operator} (use $eq, $ne, $gt, $gte, $lt or $lte)`, unknown.path));
      }),
    ),
    ...paging(10),
    query: optionalField(z.string()),
    refresh_ttl: optionalField(z.boolean()),
  }),
);
export type StoreSearch = z.output<typeof StoreSearch>;

/** StoreListNamespacesRequest (POST /store/namespaces); `*` in `prefix` or `suffix` matches any one label. */
export const StoreListNamespaces = optionalBody(
  z.object({
    prefix: optionalField(NamespaceSchema),
    suffix: optionalField(NamespaceSchema),
    max_depth: optionalField(z.int().min(1)),
    ...paging(100),
  }),
);
export type StoreListNamespaces = z.output<typeof StoreListNamespaces>;

/** An Item: a document in the store. */
export interface Item {
  readonly namespace: string[];
  readonly key: string;
  readonly value: JsonObject;
  readonly created_at: string;
  readonly updated_at: string;
}

/** An item found by a search: the real server adds its relevance `score` (null without a query ranking). */
export interface SearchItem extends Item {
  readonly score: number | null;
}
