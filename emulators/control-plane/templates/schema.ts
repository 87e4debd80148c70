import { z } from "zod";
import { queryPaging } from "../../shared/pydantic/paging.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { checkedString } from "../../shared/pydantic/value-error.ts";
import { ImageReference } from "./image.ts";
import { ProxyConfig } from "./proxy-rules.ts";
import { TemplateResources } from "./resources.ts";
import { VolumeMounts, type VolumeMount } from "./volume-mounts.ts";

/**
 * Request and response shapes of `/v2/sandboxes/templates` (docs/control-plane-templates.md).
 * Pure (zod and the emulators' pydantic helpers), so the same schemas run in the Worker and in
 * Node unit tests.
 */

/** The spec's upper bound on `limit`. */
export const MAX_LIMIT = 500;
/**
 * `limit` when the request leaves it out: the maximum, so a client that does not page (the spec
 * makes pagination optional) sees every template of any workspace below the cap.
 */
export const DEFAULT_LIMIT = MAX_LIMIT;

/** `GET /v2/sandboxes/templates` paging (spec, Limits): `limit` 1..500, `offset` 0 or more. */
export const TemplateListQuery = z.object(queryPaging({ maxLimit: MAX_LIMIT, defaultLimit: DEFAULT_LIMIT }));

/**
 * `template_id` in the path: a UUID as pydantic reads one, so a well-formed id the API never
 * issued is a 404, not a 422.
 */
export const TemplatePath = z.object({ template_id: uuid() });

/** Why `name` is not a valid template name, or nothing. */
export function checkTemplateName(name: string): string | undefined {
  if (name.trim() === "") return "a template name cannot be blank";
  if (name.trim() !== name) return "a template name cannot start or end with whitespace";
  if (/[\x00-\x1f\x7f]/.test(name)) return "a template name cannot contain control characters";
  return undefined;
}

/**
 * The body of `POST /v2/sandboxes/templates`. Only `name` and `image` are required; everything
 * else has a default. Unknown fields are refused (`extra_forbidden`) rather than dropped, so a
 * misspelt field is not silently lost.
 */
export const TemplateCreateRequest = z.strictObject({
  name: checkedString(checkTemplateName, z.string().max(128)),
  image: ImageReference,
  resources: TemplateResources,
  volume_mounts: VolumeMounts,
  proxy_config: ProxyConfig,
  /** Defaults to the image's registry host (`docker.io` for Docker Hub images). */
  registry_name: checkedString(
    (name) => (name.trim() === name && name !== "" ? undefined : "a registry name cannot be blank or padded"),
    z.string().max(255),
  ).optional(),
  /** Defaults to the workspace's id for `registry_name` (one id per registry name, minted once). */
  registry_id: uuid().optional(),
});
export type TemplateCreateRequest = z.output<typeof TemplateCreateRequest>;

/** SandboxTemplate, every field of the spec's table. */
export interface SandboxTemplate {
  readonly id: string;
  readonly name: string;
  readonly image: string;
  readonly resources: { readonly cpu: string; readonly memory: string; readonly storage: string };
  readonly volume_mounts: readonly VolumeMount[];
  readonly proxy_config: z.output<typeof ProxyConfig>;
  readonly registry_name: string;
  readonly registry_id: string;
  readonly created_at: string;
  readonly updated_at: string;
}
