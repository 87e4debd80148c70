/**
 * Stored rows to the resources the API answers with. The one place secrets are masked, so no
 * code path can return a value in clear.
 */
import { reportedSourceConfig } from "./agent-servers.ts";
import type { RevisionStatus } from "./lifecycle.ts";
import {
  documentedDeploymentType,
  SECRET_MASK,
  type Deployment,
  type DeploymentStatus,
  type Secret,
  type SecretReference,
  type Source,
  type SourceConfig,
  type SourceRevisionConfig,
  type Revision,
} from "./model.ts";
import type { DeploymentView, RevisionRow } from "./tables.ts";

const iso = (ms: number) => new Date(ms).toISOString();

const EMPTY_REVISION_CONFIG: SourceRevisionConfig = {
  repo_ref: null,
  langgraph_config_path: null,
  image_uri: null,
  source_tarball_path: null,
  repo_commit_sha: null,
};

export function toDeployment(row: DeploymentView): Deployment {
  const secrets = JSON.parse(row.secrets) as Secret[];
  const sourceConfig = JSON.parse(row.source_config) as SourceConfig;
  // Stored as sent (`serverless` included), answered within the document's enum.
  if (sourceConfig.deployment_type) sourceConfig.deployment_type = documentedDeploymentType(sourceConfig.deployment_type);
  return {
    id: row.id,
    tenant_id: row.tenant_id,
    name: row.name,
    source: row.source as Source,
    source_config: reportedSourceConfig(row.source as Source, sourceConfig, row.agent_server_url),
    source_revision_config: row.latest_config ? (JSON.parse(row.latest_config) as SourceRevisionConfig) : EMPTY_REVISION_CONFIG,
    secrets: secrets.map(({ name }) => ({ name, value: SECRET_MASK })),
    secret_references: row.secret_references ? (JSON.parse(row.secret_references) as SecretReference[]) : null,
    created_at: iso(row.created_ms),
    updated_at: iso(row.updated_ms),
    status: row.status as DeploymentStatus,
    latest_revision_id: row.latest_revision_id,
    active_revision_id: row.active_revision_id,
    image_version: row.image_version,
  };
}

export function toRevision(row: RevisionRow): Revision {
  return {
    id: row.id,
    created_at: iso(row.created_ms),
    updated_at: iso(row.updated_ms),
    status: row.status as RevisionStatus,
    source: row.source as Source,
    source_revision_config: JSON.parse(row.config) as SourceRevisionConfig,
  };
}
