import { Hono } from "hono";
import { z } from "zod";
import type { AgentServerEnv } from "../env.ts";
import { answer } from "../../shared/answer.ts";
import { queryBoolean } from "../../shared/pydantic/query.ts";
import { valueError } from "../../shared/pydantic/value-error.ts";
import { validate } from "../../shared/validate.ts";
import { findGraph } from "../graphs/registry.ts";
import { AssistantIdParam } from "../ids.ts";
import { assistantsOf } from "../state-access.ts";
import { drawGraph } from "./graph-drawing.ts";
import { graphSchemas } from "./graph-schemas.ts";

/**
 * `?xray=` as the real server reads it: `true`/`True`, `false`/`False`, or a depth above 0;
 * absent or empty is false. Anything else is a 422.
 */
const XrayQuery = z.object({
  xray: z
    .string()
    .optional()
    .superRefine((text, ctx) => {
      if (text === undefined || ["", "true", "True", "false", "False"].includes(text)) return;
      if (!/^\s*[+-]?\d+\s*$/.test(text) || Number(text) <= 0) ctx.addIssue(valueError("Invalid xray value: expected true, false or a depth above 0"));
    }),
});

/** `?recurse=` on the subgraph listings: a boolean as pydantic reads one (422 otherwise). */
const RecurseQuery = z.object({ recurse: queryBoolean() });

/**
 * Graph introspection under /assistants/{assistant_id}: the drawing, the subgraphs and the
 * schemas of the assistant's graph, all derived from the graph definition (graphs/). A graph id
 * means its default assistant, as everywhere an assistant id is taken.
 */
export const assistantGraphRoutes = new Hono<AgentServerEnv>()
  .get("/:assistant_id/graph", validate("param", AssistantIdParam), validate("query", XrayQuery), async (c) => {
    using assistants = assistantsOf(c.env);
    const found = await assistants.get(c.req.valid("param").assistant_id);
    return answer(c, found, (assistant) => c.json(drawGraph(findGraph(assistant.graph_id)!)));
  })
  .get("/:assistant_id/schemas", validate("param", AssistantIdParam), async (c) => {
    using assistants = assistantsOf(c.env);
    const found = await assistants.get(c.req.valid("param").assistant_id);
    return answer(c, found, (assistant) => c.json(graphSchemas(findGraph(assistant.graph_id)!)));
  })
  // The emulated graphs have no subgraphs: every namespace (and `?recurse=`) finds none, an empty map.
  .get("/:assistant_id/subgraphs", validate("param", AssistantIdParam), validate("query", RecurseQuery), async (c) => {
    using assistants = assistantsOf(c.env);
    return answer(c, await assistants.get(c.req.valid("param").assistant_id), () => c.json({}));
  })
  .get(
    "/:assistant_id/subgraphs/:namespace",
    validate("param", AssistantIdParam.extend({ namespace: z.string() })),
    validate("query", RecurseQuery),
    async (c) => {
      using assistants = assistantsOf(c.env);
      return answer(c, await assistants.get(c.req.valid("param").assistant_id), () => c.json({}));
    },
  );
