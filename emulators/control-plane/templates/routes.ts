import { Hono } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";
import { answer } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { templatesOf } from "../workspace.ts";
import { TemplateCreateRequest, TemplateListQuery, TemplatePath } from "./schema.ts";

/**
 * Routes under /v2/sandboxes/templates: the spec's listing, plus create, get and delete so tests
 * and users can shape it (docs/control-plane-templates.md).
 */
export const templateRoutes = new Hono<ControlPlaneEnv>()
  .get("/", validate("query", TemplateListQuery), async (c) => {
    const { limit, offset } = c.req.valid("query");
    using store = templatesOf(c);
    const listed = await store.list(limit, offset);
    return c.json({ templates: listed.items, offset: listed.offset }, 200);
  })
  .post("/", validate("json", TemplateCreateRequest), async (c) => {
    using store = templatesOf(c);
    return answer(c, await store.create(c.req.valid("json")), (template) => c.json(template, 201));
  })
  .get("/:template_id", validate("param", TemplatePath), async (c) => {
    using store = templatesOf(c);
    return answer(c, await store.get(c.req.valid("param").template_id), (template) => c.json(template, 200));
  })
  .delete("/:template_id", validate("param", TemplatePath), async (c) => {
    using store = templatesOf(c);
    return answer(c, await store.delete(c.req.valid("param").template_id), () => c.body(null, 204));
  });
