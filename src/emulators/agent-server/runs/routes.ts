import { Hono } from "hono";
import type { EmulatorEnv } from "../../shared/emulator-env.ts";
import { answer, refusal } from "../../shared/answer.ts";
import { validate } from "../../shared/validate.ts";
import { stepDelayMs } from "../config.ts";
import { findGraph, GRAPHS } from "../graphs/registry.ts";
import { resolveAssistantRef, RunIdParam, ThreadIdParam } from "../ids.ts";
import { runsOf } from "../state-object.ts";
import type { StreamMode } from "./execute.ts";
import { RunCreate } from "./schema.ts";
import { streamRun } from "./stream.ts";

/** How long a run may hold its thread beyond its paced steps before another run may take over. */
const LEASE_MS = 60_000;
const MOST_NODES = Math.max(...[...GRAPHS.values()].map((g) => g.nodes.length));

/** Routes under /threads/{thread_id}/runs. */
export const runRoutes = new Hono<EmulatorEnv>()
  .post("/:thread_id/runs/stream", validate("param", ThreadIdParam), validate("json", RunCreate), async (c) => {
    const delayMs = stepDelayMs(c.env);
    const { thread_id } = c.req.valid("param");
    const body = c.req.valid("json");
    const streamModes: StreamMode[] = body.stream_mode?.length ? body.stream_mode : ["values"];

    // Everything that can refuse the run (404, 409, 422) is decided here, before any stream starts.
    using runs = runsOf(c.env);
    const started = await runs.begin({
      runId: crypto.randomUUID(),
      threadId: thread_id,
      assistantId: resolveAssistantRef(body.assistant_id),
      assistantRef: body.assistant_id,
      context: body.context,
      metadata: body.metadata ?? {},
      kwargs: { input: body.input ?? null, config: body.config ?? {}, stream_mode: streamModes },
      multitaskStrategy: body.multitask_strategy ?? "reject",
      ifNotExists: body.if_not_exists ?? "reject",
      leaseMs: LEASE_MS + MOST_NODES * delayMs,
    });
    if (!started.ok) return refusal(c, started);
    const { run, graphId, context, values } = started.value;

    return streamRun({
      plan: { runId: run.run_id, graph: findGraph(graphId)!, context, values, input: body.input, streamModes },
      threadId: thread_id,
      delayMs,
      // The run outlives this handler (and its `runs` stub): the outcome is saved with a stub of its own.
      finish: async (status, result) => {
        using finishing = runsOf(c.env);
        return await finishing.finish(run.run_id, status, result);
      },
      waitUntil: (work) => {
        try {
          c.executionCtx.waitUntil(work);
        } catch {
          // Called without an execution context (tests calling the app directly): nothing to extend.
        }
      },
    });
  })
  .get("/:thread_id/runs/:run_id", validate("param", RunIdParam), async (c) => {
    const { thread_id, run_id } = c.req.valid("param");
    using runs = runsOf(c.env);
    return answer(c, await runs.get(thread_id, run_id));
  });
