import { Hono } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { answer, answerPage } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { ThreadIdParam } from "../ids.ts";
import { threadQueriesOf } from "../state-access.ts";
import { ThreadCount, ThreadPatch, ThreadSearch } from "./search-schema.ts";

/** POST /threads/search, POST /threads/count and PATCH /threads/{thread_id}. */
export const threadSearchRoutes = new Hono<AgentServerEnv>()
  .post("/search", validate("json", ThreadSearch), async (c) => {
    const query = c.req.valid("json");
    using threads = threadQueriesOf(c.env);
    const page = await threads.search(query);
    return answerPage(c, query.offset, page);
  })
  .post("/count", validate("json", ThreadCount), async (c) => {
    using threads = threadQueriesOf(c.env);
    return c.json(await threads.count(c.req.valid("json")));
  })
  .patch("/:thread_id", validate("param", ThreadIdParam), validate("json", ThreadPatch), async (c) => {
    using threads = threadQueriesOf(c.env);
    return answer(c, await threads.patch(c.req.valid("param").thread_id, c.req.valid("json")));
  });
