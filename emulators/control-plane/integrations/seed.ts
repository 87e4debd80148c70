/**
 * The installations every workspace starts with, one per listing, until the emulator's admin
 * route replaces them (`PUT /v2/_emulator/workspaces/{id}/integrations/{kind}`). The ids are the
 * same in every workspace so a script or test can use them without listing first; listing is
 * still the documented way to find them.
 */
import type { GithubIntegration, Installation, IntegrationKind } from "./model.ts";

const repository = (id: number, owner: string, name: string) => ({ id, name, owner, url: `https://github.com/${owner}/${name}`, default_branch: "main" });

/** The seeded GitHub App installation (`GET /v1/integrations/github/install`). */
export const GITHUB_INTEGRATION: GithubIntegration = { id: "6f1c7d4e-2a3b-4c5d-8e9f-0a1b2c3d4e5f", installation_id: 41000001, name: "acme" };

/** The seeded Forge GitHub installation (`GET /v1/integrations/forge/github/install`). */
export const FORGE_GITHUB_INTEGRATION: GithubIntegration = { id: "0d5e8a7b-3c2f-4e1d-9a6b-5c4d3e2f1a0b", installation_id: 41000002, name: "acme-forge" };

export const SEEDED_INSTALLATIONS: Readonly<Record<IntegrationKind, readonly Installation[]>> = {
  github: [{ ...GITHUB_INTEGRATION, repositories: [repository(700000001, "acme", "agent"), repository(700000002, "acme", "langgraph-example")] }],
  "forge-github": [{ ...FORGE_GITHUB_INTEGRATION, repositories: [repository(700000101, "acme-forge", "agent")] }],
};
