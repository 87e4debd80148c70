import { Hono } from "hono";
import { v4 as uuidv4 } from "uuid";
import { unprocessable, validate } from "../../shared/http.ts";
import { answer, type AgentServerEnv } from "../http.ts";
import { stateOf } from "../state-object.ts";
import { AssistantIdParam } from "../ids.ts";
import {
  AssistantCount,
  AssistantCreate,
  AssistantPatch,
  AssistantSearch,
  AssistantVersionChange,
  AssistantVersionQuery,
  AssistantVersionsSearch,
  DeleteAssistantQuery,
} from "./schema.ts";

/**
 * Routes under /assistants. Wherever a path takes an `assistant_id`, a graph id means that
 * graph's default assistant.
 */
export const assistantRoutes = new Hono<AgentServerEnv>();

assistantRoutes.post("/", validate("json", AssistantCreate), async (c) => {
  const body = c.req.valid("json");
  return answer(c, await stateOf(c.env).assistants().create(body.assistant_id ?? uuidv4(), body));
});

assistantRoutes.post("/search", validate("json", AssistantSearch), async (c) => {
  const query = c.req.valid("json");
  const page = await stateOf(c.env).assistants().search(query);
  // The official client reads X-Pagination-Next (`includePagination`); absent on the last page.
  c.header("X-Pagination-Total", String(page.total));
  const next = query.offset + page.items.length;
  if (page.items.length > 0 && next < page.total) c.header("X-Pagination-Next", String(next));
  return c.json(page.items);
});

assistantRoutes.post("/count", validate("json", AssistantCount), async (c) => {
  return c.json(await stateOf(c.env).assistants().count(c.req.valid("json")));
});

assistantRoutes.get("/:assistant_id", validate("param", AssistantIdParam), async (c) => {
  return answer(c, await stateOf(c.env).assistants().get(c.req.valid("param").assistant_id));
});

assistantRoutes.patch("/:assistant_id", validate("param", AssistantIdParam), validate("json", AssistantPatch), async (c) => {
  return answer(c, await stateOf(c.env).assistants().patch(c.req.valid("param").assistant_id, c.req.valid("json")));
});

assistantRoutes.delete("/:assistant_id", validate("param", AssistantIdParam), validate("query", DeleteAssistantQuery), async (c) => {
  const { assistant_id } = c.req.valid("param");
  const outcome = await stateOf(c.env).assistants().delete(assistant_id, c.req.valid("query").delete_threads);
  // The API answers 200 with an empty JSON object (the official client parses the body as JSON).
  return outcome.ok ? c.json({}) : answer(c, outcome);
});

assistantRoutes.post(
  "/:assistant_id/latest",
  validate("param", AssistantIdParam),
  validate("query", AssistantVersionQuery),
  validate("json", AssistantVersionChange),
  async (c) => {
    const version = c.req.valid("json").version ?? c.req.valid("query").version;
    if (version === undefined) return unprocessable(c, [{ type: "missing", loc: ["body", "version"], msg: "Field required" }]);
    return answer(c, await stateOf(c.env).assistants().setLatest(c.req.valid("param").assistant_id, version));
  },
);

assistantRoutes.post("/:assistant_id/versions", validate("param", AssistantIdParam), validate("json", AssistantVersionsSearch), async (c) => {
  return answer(c, await stateOf(c.env).assistants().versions(c.req.valid("param").assistant_id, c.req.valid("json")));
});
