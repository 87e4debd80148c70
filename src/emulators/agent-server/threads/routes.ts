import { Hono } from "hono";
import { v4 as uuidv4 } from "uuid";
import { validate } from "../../shared/http.ts";
import { answer, type AgentServerEnv } from "../http.ts";
import { stateOf } from "../state-object.ts";
import { ThreadIdParam } from "../ids.ts";
import { ThreadCreate } from "./schema.ts";

/** Routes under /threads (runs: runs/routes.ts). */
export const threadRoutes = new Hono<AgentServerEnv>();

threadRoutes.post("/", validate("json", ThreadCreate), async (c) => {
  const body = c.req.valid("json");
  return answer(c, await stateOf(c.env).threads().create(body.thread_id ?? uuidv4(), body));
});

threadRoutes.get("/:thread_id", validate("param", ThreadIdParam), async (c) => {
  return answer(c, await stateOf(c.env).threads().get(c.req.valid("param").thread_id));
});

threadRoutes.delete("/:thread_id", validate("param", ThreadIdParam), async (c) => {
  const outcome = await stateOf(c.env).threads().delete(c.req.valid("param").thread_id);
  // 200 with an empty JSON object, as for assistants.
  return outcome.ok ? c.json({}) : answer(c, outcome);
});
