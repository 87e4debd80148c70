import { Hono } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { answer, refusal, unprocessable } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { ThreadIdParam } from "../ids.ts";
import { readLastEventId, ThreadStreamQuery } from "../runs/query-schema.ts";
import { threadStateOf } from "../state-access.ts";
import { CheckpointParam, HistoryQuery, SubgraphsQuery, ThreadStateCheckpointRequest, ThreadStateSearch, ThreadStateUpdate } from "./state-schema.ts";

/**
 * A thread's state as its runs left it (under /threads/{thread_id}): the latest checkpoint or one
 * by id, the history, updates (a new checkpoint), a copy of the thread, and its event stream.
 */
export const threadStateRoutes = new Hono<AgentServerEnv>()
  .get("/:thread_id/state", validate("param", ThreadIdParam), validate("query", SubgraphsQuery), async (c) => {
    using state = threadStateOf(c.env);
    return answer(c, await state.state(c.req.valid("param").thread_id));
  })
  .post("/:thread_id/state", validate("param", ThreadIdParam), validate("json", ThreadStateUpdate), async (c) => {
    const body = c.req.valid("json");
    using state = threadStateOf(c.env);
    return answer(
      c,
      await state.update(c.req.valid("param").thread_id, { values: body.values, asNode: body.as_node, checkpointId: body.checkpoint_id ?? body.checkpoint }),
    );
  })
  // The 2026 document dropped `?subgraphs=` here (it is in the body); an older client's query is ignored, as FastAPI ignores unknown parameters.
  .post("/:thread_id/state/checkpoint", validate("param", ThreadIdParam), validate("json", ThreadStateCheckpointRequest), async (c) => {
    using state = threadStateOf(c.env);
    return answer(c, await state.state(c.req.valid("param").thread_id, c.req.valid("json").checkpoint));
  })
  .get("/:thread_id/state/:checkpoint_id", validate("param", CheckpointParam), validate("query", SubgraphsQuery), async (c) => {
    const { thread_id, checkpoint_id } = c.req.valid("param");
    using state = threadStateOf(c.env);
    return answer(c, await state.state(thread_id, checkpoint_id));
  })
  .get("/:thread_id/history", validate("param", ThreadIdParam), validate("query", HistoryQuery), async (c) => {
    const { limit, before } = c.req.valid("query");
    using state = threadStateOf(c.env);
    return answer(c, await state.history(c.req.valid("param").thread_id, { limit, before }));
  })
  .post("/:thread_id/history", validate("param", ThreadIdParam), validate("json", ThreadStateSearch), async (c) => {
    const body = c.req.valid("json");
    using state = threadStateOf(c.env);
    return answer(
      c,
      await state.history(c.req.valid("param").thread_id, { limit: body.limit, before: body.before, metadata: body.metadata, checkpointId: body.checkpoint }),
    );
  })
  .post("/:thread_id/copy", validate("param", ThreadIdParam), async (c) => {
    using state = threadStateOf(c.env);
    return answer(c, await state.copy(c.req.valid("param").thread_id));
  })
  .get("/:thread_id/stream", validate("param", ThreadIdParam), validate("query", ThreadStreamQuery), async (c) => {
    const lastEventId = readLastEventId(c.req.header("last-event-id"));
    if (!lastEventId.ok) return unprocessable(c, [lastEventId.error]);
    using state = threadStateOf(c.env);
    const stream = await state.openStream(c.req.valid("param").thread_id, lastEventId.after, c.req.valid("query"));
    return stream.ok ? stream.value : refusal(c, stream);
  });
