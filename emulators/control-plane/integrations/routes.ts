import { Hono, type Context } from "hono";
import { answer } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { authenticate, type ControlPlaneEnv } from "../auth.ts";
import type { IntegrationKind } from "./model.ts";
import { IntegrationPath } from "./schema.ts";

/**
 * The request's integration store: kept by the deployment store, which checks a `github`
 * deployment's `integration_id` against it in the same object. Declare with `using`.
 */
export const integrationsOf = (c: Context<ControlPlaneEnv>, workspaceId: string = c.var.workspaceId) =>
  c.env.CONTROL_PLANE_WORKSPACES.getByName(workspaceId).deployments().integrations();

/** `/install` and `/{integration_id}/repos` of one listing. */
const listing = (kind: IntegrationKind) =>
  new Hono<ControlPlaneEnv>()
    .get("/install", async (c) => {
      using integrations = integrationsOf(c);
      return c.json(await integrations.list(kind), 200);
    })
    .get("/:integration_id/repos", validate("param", IntegrationPath), async (c) => {
      using integrations = integrationsOf(c);
      return answer(c, await integrations.repositories(kind, c.req.valid("param").integration_id));
    });

/**
 * Routes under /v1/integrations: the GitHub App's installations and their repositories, and
 * Forge's. Authenticated as every control-plane route (the app authenticates `/v2` only).
 */
export const integrationRoutes = new Hono<ControlPlaneEnv>()
  .use("*", authenticate())
  .route("/github", listing("github"))
  .route("/forge/github", listing("forge-github"));
