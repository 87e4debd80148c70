import { Hono, type Context } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { answer, unprocessable, answerPage } from "../../shared/answer.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { readJsonBody } from "../../shared/request-body.ts";
import { validate } from "../../shared/validate.ts";
import { resolveAssistantRef, ThreadIdParam } from "../ids.ts";
import { cronsOf } from "../state-access.ts";
import { CronCount, CronCreate, CronIdParam, CronSearch, CronUpdate, ThreadCronCreate, type CronFilter, type CronRequest } from "./schema.ts";

/** POST /threads/{thread_id}/runs/crons: a cron whose runs all go to that thread. */
export const threadCronRoutes = new Hono<AgentServerEnv>().post(
  "/:thread_id/runs/crons",
  validate("param", ThreadIdParam),
  validate("json", ThreadCronCreate),
  async (c) => {
    const body = c.req.valid("json");
    using crons = cronsOf(c.env);
    return answer(c, await crons.create(await cronRequest(c, body, c.req.valid("param").thread_id, null)));
  },
);

/** /runs/crons: stateless crons (a new thread per run), and searching, counting, reading, updating and deleting any cron. */
export const cronRoutes = new Hono<AgentServerEnv>()
  .post("/", validate("json", CronCreate), async (c) => {
    const body = c.req.valid("json");
    using crons = cronsOf(c.env);
    return answer(c, await crons.create(await cronRequest(c, body, null, body.on_run_completed ?? "delete")));
  })
  .post("/search", validate("json", CronSearch), async (c) => {
    const query = c.req.valid("json");
    const filter = assistantFilter(query);
    if (!filter.ok) return unprocessable(c, [filter.error]);
    using crons = cronsOf(c.env);
    const page = await crons.search({ ...query, ...filter.value });
    return answerPage(c, query.offset, page);
  })
  .post("/count", validate("json", CronCount), async (c) => {
    const query = c.req.valid("json");
    const filter = assistantFilter(query);
    if (!filter.ok) return unprocessable(c, [filter.error]);
    using crons = cronsOf(c.env);
    return c.json(await crons.count({ ...query, ...filter.value }));
  })
  .get("/:cron_id", validate("param", CronIdParam), async (c) => {
    using crons = cronsOf(c.env);
    return answer(c, await crons.get(c.req.valid("param").cron_id));
  })
  .patch("/:cron_id", validate("param", CronIdParam), validate("json", CronUpdate), async (c) => {
    using crons = cronsOf(c.env);
    return answer(c, await crons.update(c.req.valid("param").cron_id, c.req.valid("json")));
  })
  .delete("/:cron_id", validate("param", CronIdParam), async (c) => {
    using crons = cronsOf(c.env);
    // 200 with an empty JSON object, as the document describes it (and as other deletes answer).
    return answer(c, await crons.delete(c.req.valid("param").cron_id), () => c.json({}, 200));
  });

/**
 * What to store for a cron request: the fields the store acts on, and the request itself, as sent
 * without its null fields, which the real server keeps as the cron's `payload`.
 */
async function cronRequest(
  c: Context,
  body: {
    schedule: string;
    assistant_id: string;
    end_time?: number | undefined;
    enabled?: boolean | undefined;
    metadata?: JsonObject | undefined;
    context?: JsonObject | undefined;
  },
  threadId: string | null,
  onRunCompleted: "delete" | "keep" | null,
): Promise<CronRequest> {
  // The body as sent (nulls included), read again from the cache validate("json", ...) filled.
  const read = await readJsonBody(c);
  const sent = (read.ok ? read.value : {}) as JsonObject;
  return {
    threadId,
    assistantId: resolveAssistantRef(body.assistant_id),
    body: Object.fromEntries(Object.entries(sent).filter(([, value]) => value !== null)),
    schedule: body.schedule,
    endTime: body.end_time,
    enabled: body.enabled ?? true,
    onRunCompleted,
    metadata: body.metadata ?? {},
    context: body.context,
  };
}

/** The `assistant_id` filter as an assistant UUID (a graph id names its default assistant). */
function assistantFilter(query: CronFilter) {
  if (query.assistant_id === undefined) return { ok: true as const, value: {} };
  const id = resolveAssistantRef(query.assistant_id);
  if (id !== undefined) return { ok: true as const, value: { assistant_id: id } };
  return {
    ok: false as const,
    error: { type: "uuid_parsing", loc: ["body", "assistant_id"], msg: "Input should be a valid UUID, invalid character or length", input: query.assistant_id },
  };
}
