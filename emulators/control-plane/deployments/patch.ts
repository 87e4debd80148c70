/**
 * What a PATCH does to a deployment, decided without storage: which fields may not change, how
 * the new values merge over the stored ones, and whether a new revision is due. Pure (unit-tested
 * in Node); the store applies the plan.
 */
import {
  documentedDeploymentType,
  EMPTY_REVISION_INPUT,
  SECRET_MASK,
  type DeploymentType,
  type RevisionInput,
  type Secret,
  type SecretReference,
  type Source,
  type SourceConfig,
} from "./model.ts";
import type { DeploymentPatch } from "./schema.ts";
import { sourceRuleViolations } from "./source-rules.ts";

/** `source_config` fields that "cannot be changed (PATCH) once the deployment is created" (reference). */
export const IMMUTABLE_SOURCE_CONFIG = ["integration_id", "repo_url", "deployment_type", "listener_id"] as const;

/**
 * Whether a sent immutable value is the stored one. A type is compared as answered, so sending back
 * what a GET read (`dev` for a stored `serverless`) is no change.
 */
function sameValue(field: (typeof IMMUTABLE_SOURCE_CONFIG)[number], sent: unknown, stored: unknown): boolean {
  if (field === "deployment_type" && typeof sent === "string" && typeof stored === "string") {
    return documentedDeploymentType(sent as DeploymentType) === documentedDeploymentType(stored as DeploymentType);
  }
  return sent === stored;
}

/** The stored deployment, as far as a PATCH is concerned. */
export interface PatchTarget {
  readonly source: Source;
  readonly sourceConfig: SourceConfig;
  readonly secrets: readonly Secret[];
  readonly secretReferences: readonly SecretReference[] | null;
  readonly latest: { readonly source: Source; readonly config: RevisionInput };
}

export interface PatchPlan {
  readonly sourceConfig: SourceConfig;
  readonly secrets: readonly Secret[];
  readonly secretReferences: readonly SecretReference[] | null;
  /** The revision to create, or null when nothing in the PATCH asks for one. */
  readonly revision: { readonly source: Source; readonly config: RevisionInput } | null;
}

export type PatchDecision = { readonly ok: true; readonly plan: PatchPlan } | { readonly ok: false; readonly detail: string };

/**
 * Plans `patch` over `target`. Null or absent fields leave the stored value. A non-null
 * `source_revision_config` field, `secrets` or `source_config.resource_spec` makes a new revision
 * (reference: "setting this field to a non-null value will trigger creation of a new revision"),
 * even when the value is unchanged: that is how a client redeploys a moving branch.
 */
export function planPatch(target: PatchTarget, patch: DeploymentPatch): PatchDecision {
  const requested = patch.source_config ?? {};
  for (const field of IMMUTABLE_SOURCE_CONFIG) {
    const value = requested[field];
    if (value != null && !sameValue(field, value, target.sourceConfig[field])) return immutable(`source_config.${field}`, target.sourceConfig[field]);
  }
  const namespace = requested.listener_config?.k8s_namespace;
  const currentNamespace = target.sourceConfig.listener_config?.k8s_namespace ?? null;
  if (namespace != null && namespace !== currentNamespace) return immutable("source_config.listener_config.k8s_namespace", currentNamespace);

  const sourceConfig: SourceConfig = {
    ...target.sourceConfig,
    build_on_push: requested.build_on_push ?? target.sourceConfig.build_on_push,
    custom_url: requested.custom_url ?? target.sourceConfig.custom_url,
    resource_spec: requested.resource_spec ?? target.sourceConfig.resource_spec,
    install_command: requested.install_command ?? target.sourceConfig.install_command,
    build_command: requested.build_command ?? target.sourceConfig.build_command,
  };

  let secrets: readonly Secret[] = target.secrets;
  if (patch.secrets != null) {
    const stored = new Map(target.secrets.map((s) => [s.name, s.value]));
    const next: Secret[] = [];
    for (const [index, secret] of patch.secrets.entries()) {
      // A client that read the deployment and sends its secrets back sends the mask: keep the value.
      if (secret.value === SECRET_MASK) {
        const kept = stored.get(secret.name);
        if (kept === undefined)
          return { ok: false, detail: `secrets[${index}].value is the mask for secret '${secret.name}', which is not stored: send its value.` };
        next.push({ name: secret.name, value: kept });
      } else {
        next.push({ name: secret.name, value: secret.value });
      }
    }
    secrets = next;
  }

  const revisionFields = patch.source_revision_config ?? {};
  const wantsRevision = Object.values(revisionFields).some((v) => v != null) || patch.secrets != null || requested.resource_spec != null;
  const revisionSource = wantsRevision ? (patch.revision_source ?? target.source) : target.latest.source;
  // A revision from another source starts from scratch: the old source's fields mean nothing to it.
  const base = revisionSource === target.latest.source ? target.latest.config : EMPTY_REVISION_INPUT;
  const config: RevisionInput = wantsRevision
    ? {
        repo_ref: revisionFields.repo_ref ?? base.repo_ref,
        langgraph_config_path: revisionFields.langgraph_config_path ?? base.langgraph_config_path,
        image_uri: revisionFields.image_uri ?? base.image_uri,
        source_tarball_path: revisionFields.source_tarball_path ?? base.source_tarball_path,
      }
    : target.latest.config;

  const [violation] = sourceRuleViolations({ source: target.source, revisionSource, sourceConfig, revision: config });
  if (violation) return { ok: false, detail: `${violation.path.join(".")}: ${violation.message}.` };

  return {
    ok: true,
    plan: {
      sourceConfig,
      secrets,
      secretReferences: patch.secret_references ?? target.secretReferences,
      revision: wantsRevision ? { source: revisionSource, config } : null,
    },
  };
}

function immutable(field: string, current: unknown): PatchDecision {
  return { ok: false, detail: `${field} cannot be changed after the deployment is created (it is ${JSON.stringify(current)}).` };
}
