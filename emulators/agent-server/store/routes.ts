import { Hono } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { detail } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { itemsOf } from "../state-access.ts";
import { StoreDelete, StoreGetQuery, StoreListNamespaces, StorePut, StoreSearch } from "./schema.ts";

/**
 * The store (/store/...): put, get and delete an item, search items, list namespaces. Answers as
 * the real server: 204 with no body for put and delete, the item or `null` for get, `{"items"}`
 * for a search. A listing answers the reference document's ListNamespaceResponse, a bare list of
 * namespaces, where the real server wraps it in `{"namespaces"}` (see docs/agent-server.md).
 */
export const storeRoutes = new Hono<AgentServerEnv>()
  .put("/items", validate("json", StorePut), async (c) => {
    const { namespace, key, value, ttl } = c.req.valid("json");
    using items = itemsOf(c.env);
    await items.put(namespace, key, value, ttl);
    return c.body(null, 204);
  })
  .get("/items", validate("query", StoreGetQuery), async (c) => {
    const { namespace, key, refresh_ttl } = c.req.valid("query");
    if (!key) return detail(c, 400, "Key is required");
    using items = itemsOf(c.env);
    return c.json(await items.get(namespace, key, refresh_ttl));
  })
  .delete("/items", validate("json", StoreDelete), async (c) => {
    const { namespace, key } = c.req.valid("json");
    using items = itemsOf(c.env);
    await items.delete(namespace ?? [], key);
    return c.body(null, 204);
  })
  .post("/items/search", validate("json", StoreSearch), async (c) => {
    const query = c.req.valid("json");
    using items = itemsOf(c.env);
    const found = await items.search({
      prefix: query.namespace_prefix ?? [],
      filter: query.filter,
      limit: query.limit,
      offset: query.offset,
      refreshTtl: query.refresh_ttl,
    });
    return c.json({ items: found });
  })
  .post("/namespaces", validate("json", StoreListNamespaces), async (c) => {
    using items = itemsOf(c.env);
    // The real server's and both clients' shape, where the description says a bare list (test/workers/contract/agent-server-amendments.ts).
    return c.json({ namespaces: await items.namespaces(c.req.valid("json")) });
  });
