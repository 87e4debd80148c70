/**
 * GitHub installations as the control plane lists them (reference: control-plane.openapi.json,
 * schemas GithubIntegration and GithubRepository). Pure types and constants: no runtime imports.
 */

/** The two listings: the GitHub App's installations, and Forge's GitHub installations. */
export const INTEGRATION_KINDS = ["github", "forge-github"] as const;
export type IntegrationKind = (typeof INTEGRATION_KINDS)[number];

/** GithubIntegration: what `GET /v1/integrations/{github,forge/github}/install` lists. */
export interface GithubIntegration {
  id: string;
  installation_id: number;
  /** The GitHub account the app is installed on. */
  name: string;
}

/** GithubRepository: what `GET .../{integration_id}/repos` lists. */
export interface GithubRepository {
  host_integration_id: string;
  id: number;
  name: string;
  owner: string;
  url: string;
  default_branch: string;
}

/** An installation with the repositories it grants, as stored and as the admin route sets it. */
export interface Installation extends GithubIntegration {
  repositories: Omit<GithubRepository, "host_integration_id">[];
}
