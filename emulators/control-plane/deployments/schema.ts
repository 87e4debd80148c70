/**
 * Request shapes of /v2/deployments as zod schemas, written after the reference's
 * DeploymentCreateRequest, DeploymentPatchRequest, SourceConfigRequest,
 * SourceRevisionConfigRequest, Secret, SecretReference and ResourceSpec-Input. Unknown fields are
 * dropped, as pydantic does by default. Violations become FastAPI 422s through `validate()`.
 */
import { z } from "zod";
import { toValidationErrors } from "../../../src/http/fastapi-errors.ts";
import { queryPaging } from "../../shared/pydantic/paging.ts";
import { queryBoolean, queryList, queryOptionalBoolean } from "../../shared/pydantic/query.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { valueError } from "../../shared/pydantic/value-error.ts";
import { REVISION_STATUSES } from "./lifecycle.ts";
import { DEPLOYMENT_STATUSES, DEPLOYMENT_TYPES, DOCUMENTED_DEPLOYMENT_TYPES, REVISION_SOURCES, SOURCES } from "./model.ts";
import { sourceRuleViolations } from "./source-rules.ts";

const text = z.string().nullish();
const id = uuid();
const int = z.number().int().nullish();
/** CPU cores: bounded, "rounded to 1 decimal place" (ResourceSpec). */
const cores = (max: number) =>
  z
    .number()
    .min(0.1)
    .max(max)
    .transform((v) => Math.round(v * 10) / 10)
    .nullish();
/** Kubernetes objects (volumes, containers): passed through as sent, the emulator runs no pods. */
const k8sObjects = z.array(z.looseObject({})).nullish();

const ResourceSpec = z.object({
  min_scale: int,
  max_scale: int,
  cpu: cores(8),
  cpu_limit: cores(16),
  memory_mb: int,
  memory_limit_mb: int,
  queue_min_scale: int,
  queue_max_scale: int,
  queue_cpu: cores(8),
  queue_cpu_limit: cores(16),
  queue_memory_mb: int,
  queue_memory_limit_mb: int,
  orchestrator_cpu: z.number().nullish(),
  orchestrator_cpu_limit: z.number().nullish(),
  orchestrator_memory_mb: int,
  orchestrator_memory_limit_mb: int,
  orchestrator_min_scale: int,
  orchestrator_max_scale: int,
  executor_cpu: z.number().nullish(),
  executor_cpu_limit: z.number().nullish(),
  executor_memory_mb: int,
  executor_memory_limit_mb: int,
  redis_cpu: cores(8),
  redis_cpu_limit: cores(16),
  redis_memory_mb: int,
  redis_memory_limit_mb: int,
  labels: z.record(z.string(), z.string()).nullish(),
  annotations: z.record(z.string(), z.string()).nullish(),
  service_account_name: text,
  image_pull_secrets: z.array(z.object({ name: z.string() })).nullish(),
  volumes: k8sObjects,
  volume_mounts: k8sObjects,
  init_containers: k8sObjects,
  sidecars: k8sObjects,
  db_cpu: z.number().nullish(),
  db_cpu_limit: z.number().nullish(),
  db_memory_mb: int,
  db_memory_limit_mb: int,
  db_storage_gi: int,
  db_max_connections: int,
});

/** SourceConfigRequest: every field nullable; per-source rules run on the whole body. */
export const SourceConfigRequest = z.object({
  integration_id: id.nullish(),
  repo_url: text,
  deployment_type: z.enum(DEPLOYMENT_TYPES).nullish(),
  build_on_push: z.boolean().nullish(),
  custom_url: text,
  resource_spec: ResourceSpec.nullish(),
  listener_id: id.nullish(),
  listener_config: z.object({ k8s_namespace: text }).nullish(),
  install_command: text,
  build_command: text,
});
export type SourceConfigPatch = z.output<typeof SourceConfigRequest>;

/** SourceRevisionConfigRequest: a non-null value here makes a new revision on PATCH. */
export const SourceRevisionConfigRequest = z.object({
  repo_ref: text,
  langgraph_config_path: text,
  image_uri: text,
  source_tarball_path: text,
});
export type RevisionConfigPatch = z.output<typeof SourceRevisionConfigRequest>;

const Secrets = z.array(z.object({ name: z.string().min(1), value: z.string() })).superRefine((secrets, ctx) => {
  const seen = new Set<string>();
  secrets.forEach((secret, index) => {
    if (seen.has(secret.name)) {
      // Two values for one environment variable: which one the container sees would be a guess.
      ctx.addIssue(valueError(`duplicate secret name '${secret.name}'`, [index, "name"]));
    }
    seen.add(secret.name);
  });
});

const SecretReferences = z.array(z.object({ name: z.string().min(1), secret_name: z.string().min(1), secret_key: z.string().min(1) }));

/** POST /v2/deployments body. */
export const DeploymentCreateRequest = z
  .object({
    name: z.string().min(1),
    source: z.enum(SOURCES),
    source_config: SourceConfigRequest,
    source_revision_config: SourceRevisionConfigRequest,
    secrets: Secrets,
    secret_references: SecretReferences.nullish(),
  })
  .superRefine((body, ctx) => {
    const violations = sourceRuleViolations({
      source: body.source,
      revisionSource: body.source,
      sourceConfig: body.source_config,
      revision: body.source_revision_config,
    });
    for (const v of violations) ctx.addIssue(valueError(v.message, [...v.path]));
  });
export type DeploymentCreate = z.output<typeof DeploymentCreateRequest>;

/** PATCH /v2/deployments/{id} body: every field optional; null means "leave as is". */
export const DeploymentPatchRequest = z.object({
  revision_source: z.enum(REVISION_SOURCES).nullish(),
  source_config: SourceConfigRequest.nullish(),
  source_revision_config: SourceRevisionConfigRequest.nullish(),
  secrets: Secrets.nullish(),
  secret_references: SecretReferences.nullish(),
});
export type DeploymentPatch = z.output<typeof DeploymentPatchRequest>;

/**
 * A comma separated query value, each item validated and reported at `["query", name, index]`
 * with the type pydantic would give that item (`enum`, `uuid_parsing`). The item errors are raised
 * as custom issues because the raw value at that loc is one string, not a list.
 */
const commaSeparated = <T extends z.ZodType<unknown, string>>(item: T) =>
  z.string().transform((value, ctx) => {
    const items = value
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== "");
    const parsed: z.output<T>[] = [];
    items.forEach((raw, index) => {
      const result = item.safeParse(raw);
      if (result.success) return parsed.push(result.data);
      for (const error of toValidationErrors(result.error.issues, "query", raw)) {
        ctx.addIssue({ code: "custom", path: [index], message: error.msg, params: { type: error.type } });
      }
    });
    return parsed;
  });

const paging = queryPaging({ maxLimit: 100, defaultLimit: 20 });

/** GET /v2/deployments query: paging and the filters the emulator serves. */
export const DeploymentListQuery = z.object({
  ...paging,
  name_contains: z.string().optional(),
  status: commaSeparated(z.enum(DEPLOYMENT_STATUSES)).optional(),
  deployment_ids: commaSeparated(id).optional(),
  // The document's enum: `serverless` deployments are listed as the `dev` they are answered as.
  deployment_type: z.enum(DOCUMENTED_DEPLOYMENT_TYPES).optional(),
  image_version: z.string().optional(),
  tag_value_ids: commaSeparated(id).optional(),
  remote_reconciled: queryOptionalBoolean(),
});
export type DeploymentListFilter = z.output<typeof DeploymentListQuery>;

/** GET /v2/deployments/{id}/revisions query. */
export const RevisionListQuery = z.object({
  ...paging,
  status: commaSeparated(z.enum(REVISION_STATUSES)).optional(),
  remote_reconciled: queryOptionalBoolean(),
});
export type RevisionListFilter = z.output<typeof RevisionListQuery>;

/** DELETE /v2/deployments/{id} query: accepted and validated; there is no tracing project to delete. */
export const DeploymentDeleteQuery = z.object({ delete_tracing_project: queryBoolean() });

/** DELETE /v2/deployments query: `deployment_ids` repeated, 1 to 100 UUIDs (required). */
export const BulkDeleteQuery = z.object({ deployment_ids: queryList(id, { maxItems: 100 }) });

export const DeploymentPath = z.object({ deployment_id: id });
export const RevisionPath = z.object({ deployment_id: id, revision_id: id });
