/**
 * Per-source rules on a deployment's configuration: the ones the reference states field by field
 * (SourceConfig, SourceRevisionConfig descriptions) plus what a build needs to start. Pure, shared
 * by create (answered as 422 at the body field) and PATCH (answered as 400 naming the field).
 */
import { BUILDABLE_SOURCES, type RevisionInput, type Source } from "./model.ts";

/** One broken rule: where in the request body, and what to do about it. */
export interface RuleViolation {
  readonly path: readonly ["source_config" | "source_revision_config", string];
  readonly message: string;
}

export interface ConfigUnderCheck {
  /** The deployment's source (rules on `source_config`). */
  readonly source: Source;
  /** The revision's source: the deployment's, unless a PATCH overrode it with `revision_source`. */
  readonly revisionSource: Source;
  readonly sourceConfig: { readonly repo_url?: string | null; readonly build_on_push?: boolean | null; readonly custom_url?: string | null };
  readonly revision: Partial<RevisionInput>;
}

/** The rules `config` breaks, in body order; empty when it is valid. */
export function sourceRuleViolations(config: ConfigUnderCheck): RuleViolation[] {
  const { source, revisionSource, sourceConfig, revision } = config;
  const violations: RuleViolation[] = [];
  const present = (v: string | null | undefined) => typeof v === "string" && v.trim() !== "";

  if (revisionSource === "github" && !present(sourceConfig.repo_url)) {
    violations.push({ path: ["source_config", "repo_url"], message: "repo_url is required for source 'github'" });
  }
  if (sourceConfig.build_on_push === true && revision.repo_ref?.startsWith("refs/tags/")) {
    violations.push({
      path: ["source_config", "build_on_push"],
      message: "build_on_push cannot be enabled when repo_ref is a tag (refs/tags/...): tags are immutable",
    });
  }
  if (present(sourceConfig.custom_url) && source !== "external_docker") {
    violations.push({ path: ["source_config", "custom_url"], message: "custom_url can only be set for source 'external_docker'" });
  }
  if (revisionSource === "github" && !present(revision.repo_ref)) {
    violations.push({ path: ["source_revision_config", "repo_ref"], message: "repo_ref is required for source 'github'" });
  }
  if (BUILDABLE_SOURCES.includes(revisionSource)) {
    if (!present(revision.langgraph_config_path)) {
      violations.push({
        path: ["source_revision_config", "langgraph_config_path"],
        message: `langgraph_config_path is required for source '${revisionSource}'`,
      });
    }
  } else if (revision.langgraph_config_path != null) {
    violations.push({
      path: ["source_revision_config", "langgraph_config_path"],
      message: `langgraph_config_path must be null for source '${revisionSource}'`,
    });
  }
  if (revisionSource === "external_docker" && !present(revision.image_uri)) {
    violations.push({ path: ["source_revision_config", "image_uri"], message: "image_uri is required for source 'external_docker'" });
  }
  return violations;
}
