import { Hono } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { answer } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { ThreadIdParam } from "../ids.ts";
import { threadsOf, threadStateOf } from "../state-access.ts";
import { ThreadCreate, ThreadIncludeQuery, ThreadPruneRequest } from "./schema.ts";

/** Routes under /threads (runs: runs/routes.ts; state and copies: state-routes.ts). */
export const threadRoutes = new Hono<AgentServerEnv>()
  .post("/", validate("json", ThreadCreate), async (c) => {
    const body = c.req.valid("json");
    const threadId = body.thread_id ?? crypto.randomUUID();
    const supersteps = body.supersteps;
    if (supersteps !== undefined && supersteps.length > 0) {
      using state = threadStateOf(c.env);
      return answer(c, await state.createWithSupersteps(threadId, { ...body, supersteps }));
    }
    using threads = threadsOf(c.env);
    return answer(c, await threads.create(threadId, body));
  })
  .post("/prune", validate("json", ThreadPruneRequest), async (c) => {
    const { thread_ids, strategy } = c.req.valid("json");
    using state = threadStateOf(c.env);
    return c.json(await state.prune(thread_ids, strategy));
  })
  .get("/:thread_id", validate("param", ThreadIdParam), validate("query", ThreadIncludeQuery), async (c) => {
    using threads = threadsOf(c.env);
    return answer(c, await threads.get(c.req.valid("param").thread_id, { ttl: c.req.valid("query").include.has("ttl") }));
  })
  .get("/:thread_id/storage", validate("param", ThreadIdParam), async (c) => {
    using state = threadStateOf(c.env);
    return answer(c, await state.storage(c.req.valid("param").thread_id));
  })
  .delete("/:thread_id", validate("param", ThreadIdParam), async (c) => {
    using threads = threadsOf(c.env);
    // 200 with an empty JSON object, as for assistants.
    return answer(c, await threads.delete(c.req.valid("param").thread_id), () => c.json({}, 200));
  });
