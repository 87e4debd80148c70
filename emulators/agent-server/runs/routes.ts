import { Hono, type Context } from "hono";
import type { AgentServerEnv } from "../env.ts";
import { answer, refusal, unprocessable } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { stepDelayMs } from "../settings.ts";
import { RunIdParam, ThreadIdParam } from "../ids.ts";
import { runsOf } from "../state-access.ts";
import { CancelQuery, JoinQuery, JoinStreamQuery, readLastEventId, RunListQuery } from "./query-schema.ts";
import { runRequest } from "./request.ts";
import { answerRunStream, interruptRun, runPath, settledJson } from "./responses.ts";
import { RunCreate } from "./schema.ts";

/**
 * Routes under /threads/{thread_id}/runs. Runs are created `pending` in the state object, which
 * executes them (runs/engine.ts); these routes answer as the real server does: the Run at once
 * (background), its event stream, or its outcome when it is over (wait, join).
 */
export const runRoutes = new Hono<AgentServerEnv>()
  .get("/:thread_id/runs", validate("param", ThreadIdParam), validate("query", RunListQuery), async (c) => {
    const { select, ...filter } = c.req.valid("query");
    using runs = runsOf(c.env);
    const listed = await runs.list(c.req.valid("param").thread_id, filter);
    // `select` keeps only the fields asked for, as the assistant and thread searches do.
    return answer(c, listed, (page) => c.json(select?.length ? page.map((run) => pickFields(run, select)) : page));
  })
  .post("/:thread_id/runs", validate("param", ThreadIdParam), validate("json", RunCreate), async (c) => {
    const { thread_id } = c.req.valid("param");
    using runs = runsOf(c.env);
    const created = await runs.create(runRequest({ kind: "thread", threadId: thread_id, body: c.req.valid("json") }, stepDelayMs(c.env), c.req.raw.headers));
    return answer(c, created, ({ run }) => c.json(run, 200, { "content-location": runPath(thread_id, run.run_id) }));
  })
  .post("/:thread_id/runs/stream", validate("param", ThreadIdParam), validate("json", RunCreate), async (c) => {
    const { thread_id } = c.req.valid("param");
    const body = c.req.valid("json");
    // Everything that can refuse the run (404, 409, 422) is decided here, before any stream starts.
    const resumable = body.stream_resumable === true;
    using runs = runsOf(c.env);
    const created = await runs.create(runRequest({ kind: "thread", threadId: thread_id, body }, stepDelayMs(c.env), c.req.raw.headers), {
      stream: { after: 0, modes: [], withIds: resumable },
    });
    if (!created.ok) return refusal(c, created);
    const { run, stream } = created.value;
    // Location is where the official client reconnects after a dropped stream, with the last event
    // id it saw: only a resumable stream writes ids, so only it names one.
    return answerRunStream(
      c,
      stream!,
      { threadId: thread_id, runId: run.run_id, cancelOnDisconnect: body.on_disconnect === "cancel" },
      {
        "content-location": runPath(thread_id, run.run_id),
        ...(resumable ? { location: `${runPath(thread_id, run.run_id)}/stream` } : {}),
      },
    );
  })
  .post("/:thread_id/runs/wait", validate("param", ThreadIdParam), validate("json", RunCreate), async (c) => {
    const { thread_id } = c.req.valid("param");
    const body = c.req.valid("json");
    using runs = runsOf(c.env);
    const created = await runs.create(runRequest({ kind: "thread", threadId: thread_id, body }, stepDelayMs(c.env), c.req.raw.headers));
    if (!created.ok) return refusal(c, created);
    return outcomeOf(c, thread_id, created.value.run.run_id, body.on_disconnect === "cancel");
  })
  .get("/:thread_id/runs/:run_id", validate("param", RunIdParam), async (c) => {
    const { thread_id, run_id } = c.req.valid("param");
    using runs = runsOf(c.env);
    return answer(c, await runs.get(thread_id, run_id));
  })
  .delete("/:thread_id/runs/:run_id", validate("param", RunIdParam), async (c) => {
    const { thread_id, run_id } = c.req.valid("param");
    using runs = runsOf(c.env);
    // 200 with an empty JSON object, as for threads (the document's 200 with an empty schema).
    return answer(c, await runs.delete(thread_id, run_id), () => c.json({}, 200));
  })
  .get("/:thread_id/runs/:run_id/join", validate("param", RunIdParam), validate("query", JoinQuery), async (c) => {
    const { thread_id, run_id } = c.req.valid("param");
    using runs = runsOf(c.env);
    const found = await runs.get(thread_id, run_id);
    if (!found.ok) return refusal(c, found);
    return outcomeOf(c, thread_id, run_id, c.req.valid("query").cancel_on_disconnect);
  })
  .get("/:thread_id/runs/:run_id/stream", validate("param", RunIdParam), validate("query", JoinStreamQuery), async (c) => {
    const { thread_id, run_id } = c.req.valid("param");
    const query = c.req.valid("query");
    const lastEventId = readLastEventId(c.req.header("last-event-id"));
    if (!lastEventId.ok) return unprocessable(c, [lastEventId.error]);
    using runs = runsOf(c.env);
    const stream = await runs.openStream(thread_id, run_id, {
      // Without Last-Event-ID a join replays the run from its first event (see docs/agent-server.md).
      after: lastEventId.after ?? 0,
      modes: query.stream_mode,
      withIds: true,
    });
    if (!stream.ok) return refusal(c, stream);
    return answerRunStream(
      c,
      stream.value,
      { threadId: thread_id, runId: run_id, cancelOnDisconnect: query.cancel_on_disconnect },
      {
        "content-location": runPath(thread_id, run_id),
        location: `${runPath(thread_id, run_id)}/stream`,
      },
    );
  })
  .post("/:thread_id/runs/:run_id/cancel", validate("param", RunIdParam), validate("query", CancelQuery), async (c) => {
    const { thread_id, run_id } = c.req.valid("param");
    const { wait, action } = c.req.valid("query");
    using runs = runsOf(c.env);
    const cancelled = await runs.cancel(thread_id, run_id, action);
    if (!cancelled.ok) return refusal(c, cancelled);
    // The real server answers 202 (204 after waiting); the document has 200, with the run's
    // outcome when asked to wait.
    return wait ? outcomeOf(c, thread_id, run_id, false) : c.json({}, 200);
  });

/** The fields of `value` that `select` names, in the value's order. */
function pickFields<T extends object>(value: T, select: readonly string[]): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => select.includes(key))) as Partial<T>;
}

/**
 * A run's outcome (what wait and join answer), written once the run is over; the run is
 * interrupted if the client hangs up first and asked for that.
 */
function outcomeOf(c: Context<AgentServerEnv>, threadId: string, runId: string, cancelOnDisconnect: boolean): Response {
  const env = c.env;
  return settledJson(
    async () => {
      // The run outlives this handler's stub: the wait has one of its own.
      using runs = runsOf(env);
      return await runs.result(threadId, runId);
    },
    { "content-location": runPath(threadId, runId), location: `${runPath(threadId, runId)}/join` },
    cancelOnDisconnect ? interruptRun(c, threadId, runId) : undefined,
  );
}
