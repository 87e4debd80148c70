import { z } from "zod";
import { ImageReference } from "./image.ts";
import { ProxyConfig } from "./proxy-rules.ts";
import { TemplateResources } from "./resources.ts";
import { checkedString } from "./value-error.ts";
import { VolumeMounts, type VolumeMount } from "./volume-mounts.ts";

/**
 * Request and response shapes of `/v2/sandboxes/templates` (docs/control-plane-templates.md).
 * Pure: imports only zod, so the same schemas run in the Worker and in Node unit tests.
 */

/** The spec's upper bound on `limit`. */
export const MAX_LIMIT = 500;
/**
 * `limit` when the request leaves it out: the maximum, so a client that does not page (the spec
 * makes pagination optional) sees every template of any workspace below the cap.
 */
export const DEFAULT_LIMIT = MAX_LIMIT;

/**
 * A query integer read as pydantic reads one: optional sign and digits only (`0x10`, `1e2`, `1.5`
 * and the empty string are `int_parsing`, not numbers JavaScript happens to accept). Values beyond
 * the safe range are clamped, which keeps the bound error (`less_than_equal 500`) the only one.
 */
const queryInteger = (schema: z.ZodNumber) =>
  z.preprocess((value) => {
    if (typeof value !== "string" || !/^\s*[+-]?\d+\s*$/.test(value)) return value;
    return Math.max(-Number.MAX_SAFE_INTEGER, Math.min(Number.MAX_SAFE_INTEGER, Number(value)));
  }, schema);

/** `GET /v2/sandboxes/templates` paging (spec, Limits): `limit` 1..500, `offset` 0 or more. */
export const TemplateListQuery = z.object({
  limit: queryInteger(z.number().int().min(1).max(MAX_LIMIT)).default(DEFAULT_LIMIT),
  offset: queryInteger(z.number().int().min(0)).default(0),
});

/**
 * `template_id` in the path: as lenient as pydantic's `UUID` (any 8-4-4-4-12 hex string, so a
 * well-formed id the API never issued is a 404, not a 422), lower-cased as Python prints it.
 */
export const TemplatePath = z.object({ template_id: z.guid().transform((id) => id.toLowerCase()) });

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
  registry_name: checkedString((name) => (name.trim() === name && name !== "" ? undefined : "a registry name cannot be blank or padded"), z.string().max(255)).optional(),
  /** Defaults to the workspace's id for `registry_name` (one id per registry name, minted once). */
  registry_id: z
    .guid()
    .transform((id) => id.toLowerCase())
    .optional(),
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
