import { Hono, type Context } from "hono";
import { uuid } from "../../../shared/pydantic/uuid.ts";
import { validate } from "../../../shared/validate.ts";
import type { AgentServerBindings, AgentServerEnv } from "../../env.ts";
import { AssistantIdParam } from "../../ids.ts";
import { runsOf } from "../../state-access.ts";
import type { JsonValue } from "../../../shared/pydantic/json.ts";
import { ok } from "../../../shared/result.ts";
import { interruptRun, runPath, settledJson } from "../../runs/responses.ts";
import { accepts, httpRefusal, readRpcMessage, RPC_ERRORS, rpcAnswer, type RpcError, type RpcId } from "../json-rpc.ts";
import { errorOf, refusalText } from "../mcp/tools.ts";
import { startRun } from "../run-to-end.ts";
import { agentCard } from "./card.ts";
import { readSentMessage } from "./message.ts";
import { taskState, toTask } from "./task.ts";

/** A2A's TaskNotFoundError and UnsupportedOperationError codes. */
const TASK_NOT_FOUND = -32001;
const UNSUPPORTED_OPERATION = -32004;
/** The most history `tasks/get` gives, as the real server caps `historyLength`. */
const MAX_HISTORY_LENGTH = 10;

type Outcome = { result: unknown } | { error: RpcError };
const invalidParams = (message: string): Outcome => ({ error: { code: RPC_ERRORS.invalidParams, message } });

/**
 * `message/send`: runs the assistant on the message's context (a thread, made if it does not exist
 * yet; a new one when the message names none) and answers the Task once the run is over, so a
 * second message with the same `contextId` continues the conversation. Answered as `POST
 * /runs/wait` answers (runs/responses.ts, settledJson): refused at once, or 200 with its headers at
 * once and the JSON-RPC answer when the run is over, since a run may take longer than anything
 * between client and server waits for headers. A caller that hangs up first has its run
 * interrupted: no one is left to take the Task, and the run would hold its thread busy.
 */
async function answerSendMessage(c: Context<AgentServerEnv>, id: RpcId, assistantId: string, params: Record<string, unknown>): Promise<Response> {
  const sent = readSentMessage(params);
  if ("code" in sent) return rpcAnswer(c, id, { error: sent });
  const contextId = sent.contextId === undefined ? crypto.randomUUID() : uuid().safeParse(sent.contextId).data;
  if (contextId === undefined)
    return rpcAnswer(c, id, invalidParams(`contextId ${JSON.stringify(sent.contextId)} is not a UUID: a context is a thread of the agent server.`));
  const started = await startRun(c.env, { kind: "thread", threadId: contextId, assistantId, input: sent.input });
  if (!started.ok) return rpcAnswer(c, id, invalidParams(started.status === 404 ? `Assistant '${assistantId}' not found` : refusalText(started)));
  const { run, outcome } = started.value;
  const env = c.env;
  return settledJson(
    async () => {
      using waiting = outcome;
      const value = await waiting.value();
      using runs = runsOf(env);
      const ended = await runs.find(run.run_id);
      const state = ended ? taskState(ended.status) : errorOf(value) ? "failed" : "completed";
      const task = toTask({
        taskId: run.run_id,
        contextId: run.thread_id,
        assistantId: run.assistant_id,
        state,
        outcome: value,
        timestamp: new Date().toISOString(),
      });
      return ok({ jsonrpc: "2.0", id, result: task } as JsonValue);
    },
    { "content-location": runPath(run.thread_id, run.run_id) },
    interruptRun(c, run.thread_id, run.run_id),
  );
}

/**
 * `tasks/get`: the run named by `id` (A2A's TaskQueryParams; the document writes `taskId`), on
 * the thread `contextId` names when it names one. The official clients send only the id, so the
 * context is optional here, where the real server requires it.
 */
async function getTask(env: AgentServerBindings, params: Record<string, unknown>): Promise<Outcome> {
  const taskId = params.id ?? params.taskId;
  if (typeof taskId !== "string" || taskId === "") return invalidParams("Missing required parameter: id (task_id)");
  const historyLength = params.historyLength;
  if (historyLength !== undefined && historyLength !== null && (!Number.isInteger(historyLength) || (historyLength as number) < 0)) {
    return invalidParams("historyLength must be a non-negative integer");
  }
  if (typeof historyLength === "number" && historyLength > MAX_HISTORY_LENGTH) return invalidParams(`historyLength cannot exceed ${MAX_HISTORY_LENGTH}`);
  const runId = uuid().safeParse(taskId).data;
  const contextId = params.contextId === undefined || params.contextId === null ? undefined : (uuid().safeParse(params.contextId).data ?? "");
  using runs = runsOf(env);
  const run = runId === undefined ? undefined : await runs.find(runId);
  if (!run || (contextId !== undefined && run.thread_id !== contextId)) return { error: { code: TASK_NOT_FOUND, message: `Task '${taskId}' not found` } };
  const state = taskState(run.status);
  const over = state !== "submitted" && state !== "working";
  const result = over ? await runs.result(run.thread_id, run.run_id) : undefined;
  return {
    result: toTask({
      taskId: run.run_id,
      contextId: run.thread_id,
      assistantId: run.assistant_id,
      state,
      outcome: result?.ok ? result.value : undefined,
      timestamp: run.updated_at,
      historyLength: (historyLength as number | null | undefined) ?? undefined,
    }),
  };
}

/** The A2A methods but `message/send` (answerSendMessage): the document's other, and what the real server answers for the protocol's others. */
async function dispatch(c: Context<AgentServerEnv>, assistantId: string, method: string, params: Record<string, unknown>): Promise<Outcome> {
  switch (method) {
    case "tasks/get":
      return getTask(c.env, params);
    case "message/stream":
      return {
        error: {
          code: UNSUPPORTED_OPERATION,
          message: "Streaming is not supported by the agent-server emulator (its agent card says capabilities.streaming: false); use message/send.",
        },
      };
    case "tasks/cancel":
      return { error: { code: UNSUPPORTED_OPERATION, message: "Task cancellation is not currently supported" } };
    default:
      return { error: { code: RPC_ERRORS.methodNotFound, message: `Method not found: ${method}` } };
  }
}

/**
 * A2A (protocol 0.3, JSON-RPC transport) as the real server serves it: `POST /a2a/{assistant_id}`
 * takes one JSON-RPC request (`Accept` must admit application/json), and
 * `GET /.well-known/agent-card.json?assistant_id=...` describes each assistant as an agent.
 */
export const a2aRoutes = new Hono<AgentServerEnv>()
  .post("/a2a/:assistant_id", validate("param", AssistantIdParam), async (c) => {
    if (!accepts(c.req.header("accept"), "application/json")) return httpRefusal(c, 400, "Accept header must include application/json");
    const message = await readRpcMessage(c);
    if ("error" in message) return httpRefusal(c, message.status, message.error.message, message.error);
    // The document's request requires an id: A2A has no client notifications, and the answer is the task.
    if (message.kind !== "request") {
      const error = { code: RPC_ERRORS.invalidRequest, message: "Invalid request: an A2A message is a JSON-RPC request with an id and a method." };
      return httpRefusal(c, 400, error.message, error);
    }
    const assistantId = c.req.valid("param").assistant_id;
    // Its headers at once, its Task when the run is over (answerSendMessage).
    if (message.method === "message/send") return answerSendMessage(c, message.id, assistantId, message.params);
    return rpcAnswer(c, message.id, await dispatch(c, assistantId, message.method, message.params));
  })
  .get("/.well-known/agent-card.json", async (c) => agentCard(c));
