import { Hono } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { answer, unprocessable, answerPage } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { AssistantIdParam } from "../ids.ts";
import { assistantsOf } from "../state-access.ts";
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
 * graph's default assistant. Each handler validates, then makes one pipelined call to the store.
 */
export const assistantRoutes = new Hono<AgentServerEnv>()
  .post("/", validate("json", AssistantCreate), async (c) => {
    const body = c.req.valid("json");
    using assistants = assistantsOf(c.env);
    return answer(c, await assistants.create(body.assistant_id ?? crypto.randomUUID(), body));
  })
  .post("/search", validate("json", AssistantSearch), async (c) => {
    const query = c.req.valid("json");
    using assistants = assistantsOf(c.env);
    const page = await assistants.search(query);
    return answerPage(c, query.offset, page);
  })
  .post("/count", validate("json", AssistantCount), async (c) => {
    using assistants = assistantsOf(c.env);
    return c.json(await assistants.count(c.req.valid("json")));
  })
  .get("/:assistant_id", validate("param", AssistantIdParam), async (c) => {
    using assistants = assistantsOf(c.env);
    return answer(c, await assistants.get(c.req.valid("param").assistant_id));
  })
  .patch("/:assistant_id", validate("param", AssistantIdParam), validate("json", AssistantPatch), async (c) => {
    using assistants = assistantsOf(c.env);
    return answer(c, await assistants.patch(c.req.valid("param").assistant_id, c.req.valid("json")));
  })
  .delete("/:assistant_id", validate("param", AssistantIdParam), validate("query", DeleteAssistantQuery), async (c) => {
    using assistants = assistantsOf(c.env);
    const result = await assistants.delete(c.req.valid("param").assistant_id, c.req.valid("query").delete_threads);
    // The API answers 200 with an empty JSON object (the official client parses the body as JSON).
    return answer(c, result, () => c.json({}, 200));
  })
  .post(
    "/:assistant_id/latest",
    validate("param", AssistantIdParam),
    validate("query", AssistantVersionQuery),
    validate("json", AssistantVersionChange),
    async (c) => {
      const version = c.req.valid("json").version ?? c.req.valid("query").version;
      if (version === undefined) return unprocessable(c, [{ type: "missing", loc: ["body", "version"], msg: "Field required" }]);
      using assistants = assistantsOf(c.env);
      return answer(c, await assistants.setLatest(c.req.valid("param").assistant_id, version));
    },
  )
  .post("/:assistant_id/versions", validate("param", AssistantIdParam), validate("json", AssistantVersionsSearch), async (c) => {
    using assistants = assistantsOf(c.env);
    return answer(c, await assistants.versions(c.req.valid("param").assistant_id, c.req.valid("json")));
  });
