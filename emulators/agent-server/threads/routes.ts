import { Hono } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { answer } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { ThreadIdParam } from "../ids.ts";
import { threadsOf } from "../state-access.ts";
import { ThreadCreate } from "./schema.ts";

/** Routes under /threads (runs: runs/routes.ts). */
export const threadRoutes = new Hono<AgentServerEnv>()
  .post("/", validate("json", ThreadCreate), async (c) => {
    const body = c.req.valid("json");
    using threads = threadsOf(c.env);
    return answer(c, await threads.create(body.thread_id ?? crypto.randomUUID(), body));
  })
  .get("/:thread_id", validate("param", ThreadIdParam), async (c) => {
    using threads = threadsOf(c.env);
    return answer(c, await threads.get(c.req.valid("param").thread_id));
  })
  .delete("/:thread_id", validate("param", ThreadIdParam), async (c) => {
    using threads = threadsOf(c.env);
    // 200 with an empty JSON object, as for assistants.
    return answer(c, await threads.delete(c.req.valid("param").thread_id), () => c.json({}, 200));
  });
