/**
 * Request shapes of the integration listings and of the emulator's admin route that sets them.
 * Violations become FastAPI 422s through `validate()`.
 */
import { z } from "zod";
import { uniqueBy } from "../../shared/pydantic/value-error.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { INTEGRATION_KINDS } from "./model.ts";

export const IntegrationPath = z.object({ integration_id: uuid() });

/** One repository an installation grants; `owner`, `url` and `default_branch` have defaults. */
const RepositoryInput = z.object({
  id: z.int().min(1),
  name: z.string().min(1),
  owner: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  default_branch: z.string().min(1).default("main"),
});

const InstallationInput = z.object({
  id: uuid(),
  installation_id: z.int().min(1),
  name: z.string().min(1),
  repositories: z
    .array(RepositoryInput)
    .superRefine(uniqueBy((r: { id: number }) => String(r.id), ["id"], "repository id"))
    .default([]),
});

/**
 * `PUT /v2/_emulator/workspaces/{workspace_id}/integrations/{kind}` body: the listing's
 * installations, each with its repositories; a repository's owner defaults to the installation's
 * account name and its URL to `https://github.com/{owner}/{name}`.
 */
export const InstallationsBody = z
  .array(InstallationInput)
  .superRefine(uniqueBy((i: { id: string }) => i.id, ["id"], "integration id"))
  .transform((installations) =>
    installations.map(({ repositories, ...installation }) => ({
      ...installation,
      repositories: repositories.map(({ owner = installation.name, url, ...repository }) => ({
        ...repository,
        owner,
        url: url ?? `https://github.com/${owner}/${repository.name}`,
      })),
    })),
  );

export const KindPath = z.object({ kind: z.enum(INTEGRATION_KINDS) });
