import { Hono } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";
import { answer } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { listenersOf } from "../workspace.ts";
import { ListenerCreateRequest, ListenerListQuery, ListenerPatchRequest, ListenerPath } from "./schema.ts";

/**
 * `/v2/listeners`: list, create, get, PATCH (the real API) and PUT (the spec's name for the same
 * update, with the full create body), delete. Validation answers 422 before the store is asked;
 * the store answers 403 / 404 / 409 / 400. One RPC round trip per request.
 */
export const listenerRoutes = new Hono<ControlPlaneEnv>()
  .get("/", validate("query", ListenerListQuery), async (c) => {
    const { limit, offset } = c.req.valid("query");
    using store = listenersOf(c);
    const result = await store.list(c.var.workspaceId, limit, offset);
    return answer(c, result, (listed) => c.json({ resources: listed.items, offset: listed.offset }, 200));
  })
  .post("/", validate("json", ListenerCreateRequest), async (c) => {
    using store = listenersOf(c);
    const result = await store.create(c.var.workspaceId, c.req.valid("json"));
    return answer(c, result, (listener) => c.json(listener, 201));
  })
  .get("/:listener_id", validate("param", ListenerPath), async (c) => {
    using store = listenersOf(c);
    const result = await store.get(c.var.workspaceId, c.req.valid("param").listener_id);
    return answer(c, result, (listener) => c.json(listener, 200));
  })
  .patch("/:listener_id", validate("param", ListenerPath), validate("json", ListenerPatchRequest), async (c) => {
    const patch = c.req.valid("json");
    // null compute_config means "leave it": the resource's compute_config is never null.
    const change = { ...patch, compute_config: patch.compute_config ?? undefined };
    using store = listenersOf(c);
    const result = await store.update(c.var.workspaceId, c.req.valid("param").listener_id, change);
    return answer(c, result, (listener) => c.json(listener, 200));
  })
  .put("/:listener_id", validate("param", ListenerPath), validate("json", ListenerCreateRequest), async (c) => {
    // PUT replaces: an omitted version becomes null (the create shape's default), as on POST.
    using store = listenersOf(c);
    const result = await store.update(c.var.workspaceId, c.req.valid("param").listener_id, c.req.valid("json"));
    return answer(c, result, (listener) => c.json(listener, 200));
  })
  .delete("/:listener_id", validate("param", ListenerPath), async (c) => {
    using store = listenersOf(c);
    const result = await store.remove(c.var.workspaceId, c.req.valid("param").listener_id);
    return answer(c, result, () => c.body(null, 204));
  });
