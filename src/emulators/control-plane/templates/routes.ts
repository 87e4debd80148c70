import { Hono, type Context } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";
import { detail, validate } from "../../shared/http.ts";
import type { StoreResult } from "../store-result.ts";
import { workspaceOf } from "../workspace.ts";
import { TemplateCreateRequest, TemplateListQuery, TemplatePath } from "./schema.ts";

/**
 * Routes under /v2/sandboxes/templates: the spec's listing, plus create, get and delete so tests
 * and users can shape it (docs/control-plane-templates.md).
 */
export const templateRoutes = new Hono<ControlPlaneEnv>()
  .get("/", validate("query", TemplateListQuery), async (c) => {
    const { limit, offset } = c.req.valid("query");
    const listed = await workspaceOf(c).templates().list(limit, offset);
    return c.json({ templates: listed.items, offset: listed.offset }, 200);
  })
  .post("/", validate("json", TemplateCreateRequest), async (c) => {
    const created = await workspaceOf(c).templates().create(c.req.valid("json"));
    return created.ok ? c.json(created.value, 201) : refusal(c, created);
  })
  .get("/:template_id", validate("param", TemplatePath), async (c) => {
    const found = await workspaceOf(c).templates().get(c.req.valid("param").template_id);
    return found.ok ? c.json(found.value, 200) : refusal(c, found);
  })
  .delete("/:template_id", validate("param", TemplatePath), async (c) => {
    const deleted = await workspaceOf(c).templates().delete(c.req.valid("param").template_id);
    return deleted.ok ? c.body(null, 204) : refusal(c, deleted);
  });

/** A store's refusal as FastAPI's `{"detail": "..."}`. */
function refusal(c: Context, result: Extract<StoreResult<unknown>, { ok: false }>): Response {
  return detail(c, result.status, result.detail);
}
