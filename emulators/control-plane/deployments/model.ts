/**
 * The deployment and revision resources as the control plane writes them (reference:
 * control-plane.openapi.json, schemas Deployment, Revision, SourceConfig, SourceRevisionConfig).
 * Pure types and constants: no runtime imports, so Node unit tests can use them.
 */
import type { RevisionStatus } from "./lifecycle.ts";

export const SOURCES = ["github", "external_docker", "internal_docker", "internal_source"] as const;
export type Source = (typeof SOURCES)[number];

/** Sources the platform builds from code (`langgraph_config_path` required, reference). */
export const BUILDABLE_SOURCES: readonly Source[] = ["github", "internal_source"];

/** A revision may override the deployment's source with one of these (DeploymentPatchRequest). */
export const REVISION_SOURCES = ["github", "internal_docker", "internal_source"] as const;

/** The document's enum (SourceConfig `deployment_type`): what every answer and the list filter use. */
export const DOCUMENTED_DEPLOYMENT_TYPES = ["dev_free", "dev", "prod"] as const;
export type DocumentedDeploymentType = (typeof DOCUMENTED_DEPLOYMENT_TYPES)[number];

/** What a create accepts: the enum plus `serverless`, which public examples send (reference README). */
export const DEPLOYMENT_TYPES = [...DOCUMENTED_DEPLOYMENT_TYPES, "serverless"] as const;
export type DeploymentType = (typeof DEPLOYMENT_TYPES)[number];

/**
 * A stored type as the document's enum says it. `serverless` is stored as sent and answered as
 * `dev`: the platform's docs name two types, Development and Production, and the serverless
 * examples ask for the small, single-replica kind that Development is; `dev_free` is a plan's free
 * variant the client did not ask for (docs/control-plane-deployments.md).
 */
export function documentedDeploymentType(type: DeploymentType): DocumentedDeploymentType {
  return type === "serverless" ? "dev" : type;
}

/** The stored types a documented type is answered for (the list filter's `deployment_type`). */
export function storedDeploymentTypes(type: DocumentedDeploymentType): DeploymentType[] {
  return DEPLOYMENT_TYPES.filter((stored) => documentedDeploymentType(stored) === type);
}

export const DEPLOYMENT_STATUSES = ["AWAITING_DATABASE", "READY", "UNUSED", "AWAITING_DELETE", "UNKNOWN"] as const;
export type DeploymentStatus = (typeof DEPLOYMENT_STATUSES)[number];

/** What `image_version` reads once a revision is deployed: obviously not a real agent-server image. */
export const EMULATED_IMAGE_VERSION = "0.0.0-emulator";

/** Shown in place of every secret value: fixed, so it leaks neither the value nor its length. */
export const SECRET_MASK = "********";

/** ResourceSpec as sent: the known fields, validated, echoed back; unknown fields dropped. */
export type ResourceSpec = Record<string, unknown>;

export interface ListenerConfig {
  k8s_namespace: string | null;
}

export interface SourceConfig {
  integration_id: string | null;
  repo_url: string | null;
  deployment_type: DeploymentType | null;
  build_on_push: boolean | null;
  custom_url: string | null;
  resource_spec: ResourceSpec | null;
  listener_id: string | null;
  listener_config: ListenerConfig | null;
  install_command: string | null;
  build_command: string | null;
}

/** The fields whose new value makes a new revision (SourceRevisionConfigRequest). */
export interface RevisionInput {
  repo_ref: string | null;
  langgraph_config_path: string | null;
  image_uri: string | null;
  source_tarball_path: string | null;
}

export interface SourceRevisionConfig extends RevisionInput {
  /** Read-only; set for `github` revisions (the emulator makes one up per revision). */
  repo_commit_sha: string | null;
}

export interface Secret {
  name: string;
  value: string;
}

export interface SecretReference {
  name: string;
  secret_name: string;
  secret_key: string;
}

export interface Deployment {
  id: string;
  tenant_id: string;
  name: string;
  source: Source;
  source_config: SourceConfig;
  /** The latest revision's configuration (reference: SourceRevisionConfig). */
  source_revision_config: SourceRevisionConfig;
  /** Names only: every value reads {@link SECRET_MASK}. */
  secrets: Secret[];
  secret_references: SecretReference[] | null;
  created_at: string;
  updated_at: string;
  status: DeploymentStatus;
  latest_revision_id: string | null;
  active_revision_id: string | null;
  image_version: string | null;
}

export interface Revision {
  id: string;
  created_at: string;
  updated_at: string;
  status: RevisionStatus;
  source: Source;
  source_revision_config: SourceRevisionConfig;
}

export const EMPTY_SOURCE_CONFIG: SourceConfig = {
  integration_id: null,
  repo_url: null,
  deployment_type: null,
  build_on_push: null,
  custom_url: null,
  resource_spec: null,
  listener_id: null,
  listener_config: null,
  install_command: null,
  build_command: null,
};

export const EMPTY_REVISION_INPUT: RevisionInput = {
  repo_ref: null,
  langgraph_config_path: null,
  image_uri: null,
  source_tarball_path: null,
};
