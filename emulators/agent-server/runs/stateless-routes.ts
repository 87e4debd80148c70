import { Hono } from "hono";
import { z } from "zod";
import type { AgentServerEnv } from "../env.ts";
import { answer, detail, refusal, unprocessable } from "../../shared/answer.ts";
import { ok } from "../../shared/result.ts";
import { optionalField } from "../../shared/pydantic/optional.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { valueError } from "../../shared/pydantic/value-error.ts";
import { validate } from "../../shared/validate.ts";
import { stepDelayMs } from "../settings.ts";
import { runsOf } from "../state-access.ts";
import { RunIdOnlyParam } from "./query-schema.ts";
import { CancelQuery, JoinStreamQuery, readLastEventId } from "./query-schema.ts";
import { runRequest } from "./request.ts";
import { answerRunStream, interruptRun, runPath, settledJson } from "./responses.ts";
import { RunBatchCreate, RunCreateStateless } from "./schema.ts";

/**
 * RunsCancel (POST /runs/cancel): `status` (every pending and/or running run), or `thread_id` with
 * `run_ids`; never both, as the real server refuses.
 */
const RunsCancel = z
  .object({
    status: optionalField(z.enum(["pending", "running", "all"])),
    thread_id: optionalField(uuid()),
    run_ids: optionalField(z.array(uuid())),
  })
  .superRefine((body, ctx) => {
    if (body.status !== undefined && (body.thread_id !== undefined || body.run_ids !== undefined)) {
      ctx.addIssue(valueError("give either a status, or thread_id with run_ids, not both"));
    } else if (body.status === undefined && (body.thread_id === undefined || body.run_ids === undefined)) {
      ctx.addIssue(valueError("give a status ('pending', 'running' or 'all'), or both thread_id and run_ids"));
    }
  });

/**
 * Stateless runs (under /runs): each on a new thread of its own, deleted when the run ends unless
 * `on_completion` is `keep`. Created, executed and answered like runs on a thread (runs/routes.ts).
 */
export const statelessRunRoutes = new Hono<AgentServerEnv>()
  .post("/", validate("json", RunCreateStateless), async (c) => {
    using runs = runsOf(c.env);
    const created = await runs.create(runRequest({ kind: "stateless", body: c.req.valid("json") }, stepDelayMs(c.env), c.req.raw.headers));
    return answer(c, created, ({ run }) => c.json(run, 200, { "content-location": `/runs/${run.run_id}` }));
  })
  .post("/stream", validate("json", RunCreateStateless), async (c) => {
    const body = c.req.valid("json");
    using runs = runsOf(c.env);
    // The stream is attached as the run is created: the run may be over, and its thread gone,
    // before another call could open it.
    const created = await runs.create(runRequest({ kind: "stateless", body }, stepDelayMs(c.env), c.req.raw.headers), {
      stream: { after: 0, modes: [], withIds: body.stream_resumable === true },
    });
    if (!created.ok) return refusal(c, created);
    const { run, stream } = created.value;
    // No Location: the thread of a stateless run goes when the run ends, so there is nothing to rejoin.
    return answerRunStream(
      c,
      stream!,
      { threadId: run.thread_id, runId: run.run_id, cancelOnDisconnect: body.on_disconnect === "cancel" },
      {
        "content-location": `/runs/${run.run_id}`,
      },
    );
  })
  .post("/wait", validate("json", RunCreateStateless), async (c) => {
    const body = c.req.valid("json");
    using runs = runsOf(c.env);
    // The outcome is attached as the run is created: the run's thread is deleted when it ends.
    const created = await runs.create(runRequest({ kind: "stateless", body }, stepDelayMs(c.env), c.req.raw.headers), { outcome: true });
    if (!created.ok) return refusal(c, created);
    const { run, outcome } = created.value;
    const { thread_id, run_id } = run;
    return settledJson(
      async () => {
        using waiting = outcome!;
        return ok(await waiting.value());
      },
      { "content-location": runPath(thread_id, run_id), location: `${runPath(thread_id, run_id)}/join` },
      body.on_disconnect === "cancel" ? interruptRun(c, thread_id, run_id) : undefined,
    );
  })
  .post("/batch", validate("json", RunBatchCreate), async (c) => {
    using runs = runsOf(c.env);
    const delay = stepDelayMs(c.env);
    // All or none: the first refusal (an unknown assistant, a context the graph refuses) is the answer.
    const requests = c.req.valid("json").map((body) => runRequest({ kind: "stateless", body }, delay, c.req.raw.headers));
    return answer(c, await runs.createMany(requests));
  })
  // GET /runs/{run_id}/stream, the official client's join without a thread (`joinStream(null,
  // runId)`): the run found by its id alone, then joined as on its thread. A stateless run's
  // thread, and its events with it, go when the run ends (unless `on_completion: keep`): such a
  // run is joined while it runs, and is a 404 after.
  .get("/:run_id/stream", validate("param", RunIdOnlyParam), validate("query", JoinStreamQuery), async (c) => {
    const { run_id } = c.req.valid("param");
    const query = c.req.valid("query");
    const lastEventId = readLastEventId(c.req.header("last-event-id"));
    if (!lastEventId.ok) return unprocessable(c, [lastEventId.error]);
    using runs = runsOf(c.env);
    const run = await runs.find(run_id);
    if (!run) return detail(c, 404, `Run ${run_id} not found.`);
    const stream = await runs.openStream(run.thread_id, run_id, { after: lastEventId.after ?? 0, modes: query.stream_mode, withIds: true });
    if (!stream.ok) return refusal(c, stream);
    return answerRunStream(
      c,
      stream.value,
      { threadId: run.thread_id, runId: run_id, cancelOnDisconnect: query.cancel_on_disconnect },
      {
        "content-location": `/runs/${run_id}`,
        location: `/runs/${run_id}/stream`,
      },
    );
  })
  .post("/cancel", validate("query", CancelQuery), validate("json", RunsCancel), async (c) => {
    const body = c.req.valid("json");
    using runs = runsOf(c.env);
    const selection = body.status !== undefined ? { status: body.status } : { threadId: body.thread_id!, runIds: body.run_ids! };
    const cancelled = await runs.cancelMany(selection, c.req.valid("query").action);
    return answer(c, cancelled, () => c.body(null, 204));
  });
