import { Hono } from "hono";
import { v4 as uuidv4 } from "uuid";
import { validate } from "../../shared/http.ts";
import { stepDelayMs } from "../config.ts";
import { findGraph, GRAPHS } from "../graphs/registry.ts";
import { answer, refusal, type AgentServerEnv } from "../http.ts";
import { stateOf } from "../state-object.ts";
import { resolveAssistantRef, RunIdParam, ThreadIdParam } from "../ids.ts";
import type { StreamMode } from "./execute.ts";
import { RunCreate } from "./schema.ts";
import { streamRun } from "./stream.ts";

/** How long a run may hold its thread beyond its paced steps before another run may take over. */
const LEASE_MS = 60_000;
const MOST_NODES = Math.max(...[...GRAPHS.values()].map((g) => g.nodes.length));

/** Routes under /threads/{thread_id}/runs. */
export const runRoutes = new Hono<AgentServerEnv>();

runRoutes.post("/:thread_id/runs/stream", validate("param", ThreadIdParam), validate("json", RunCreate), async (c) => {
  const delayMs = stepDelayMs(c.env);
  const { thread_id } = c.req.valid("param");
  const body = c.req.valid("json");
  const streamModes: StreamMode[] = body.stream_mode?.length ? body.stream_mode : ["values"];
  const state = stateOf(c.env);

  // Everything that can refuse the run (404, 409, 422) is decided here, before any stream starts.
  const started = await state.runs().begin({
    runId: uuidv4(),
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
    finish: (status, result) => state.runs().finish(run.run_id, status, result),
    waitUntil: (work) => {
      try {
        c.executionCtx.waitUntil(work);
      } catch {
        // Called without an execution context (tests calling the app directly): nothing to extend.
      }
    },
  });
});

runRoutes.get("/:thread_id/runs/:run_id", validate("param", RunIdParam), async (c) => {
  const { thread_id, run_id } = c.req.valid("param");
  return answer(c, await stateOf(c.env).runs().get(thread_id, run_id));
});
