import { z } from "zod";
import { queryPaging } from "../../shared/pydantic/paging.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";

/** The only compute type the control plane knows today. */
export const COMPUTE_TYPE = "k8s";

/**
 * `listener_id` in the path: a UUID as pydantic reads one (so a well-formed id the API never
 * issued is a 404, not a 422), in the canonical spelling the 404 message and the lookup share.
 */
export const ListenerPath = z.object({ listener_id: uuid() });

/** `GET /v2/listeners` paging: the real API's bounds and defaults. */
export const ListenerListQuery = z.object(queryPaging({ maxLimit: 100, defaultLimit: 20 }));

/** ListenerComputeConfig: `k8s_namespaces` may be omitted (null). */
export const ListenerComputeConfig = z.object({
  k8s_namespaces: z.array(z.string()).nullable().default(null),
});
export type ListenerComputeConfig = z.output<typeof ListenerComputeConfig>;

/** ListenerCreateRequest (also the body of PUT, which replaces the mutable fields). */
export const ListenerCreateRequest = z.object({
  compute_type: z.literal(COMPUTE_TYPE),
  // The unique key of a listener within its workspace: an empty one would be a key nobody meant.
  compute_id: z.string().min(1),
  compute_config: ListenerComputeConfig,
  version: z.string().nullable().default(null),
});
export type ListenerCreateRequest = z.output<typeof ListenerCreateRequest>;

/**
 * ListenerPatchRequest: every field optional; absent means unchanged. `compute_type` and
 * `compute_id` are not in the real schema; they are read here only so that a client that tries
 * to change them hears about it (the store refuses a different value) instead of being ignored.
 */
export const ListenerPatchRequest = z.object({
  version: z.string().nullable().optional(),
  compute_config: ListenerComputeConfig.nullable().optional(),
  compute_type: z.literal(COMPUTE_TYPE).optional(),
  compute_id: z.string().min(1).optional(),
});
export type ListenerPatchRequest = z.output<typeof ListenerPatchRequest>;

/** The Listener resource as the API answers it. */
export interface Listener {
  readonly id: string;
  readonly compute_type: typeof COMPUTE_TYPE;
  readonly compute_id: string;
  readonly compute_config: ListenerComputeConfig;
  readonly version: string | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/**
 * A change to a stored listener. Absent fields stay as they are; `compute_type` and `compute_id`
 * may only repeat the stored value.
 */
export interface ListenerChange {
  readonly compute_type?: typeof COMPUTE_TYPE | undefined;
  readonly compute_id?: string | undefined;
  readonly compute_config?: ListenerComputeConfig | undefined;
  readonly version?: string | null | undefined;
}
