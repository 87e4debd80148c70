import { resolveAssistantRef } from "../ids.ts";
import type { StreamMode } from "./execute.ts";
import { configurableHeaders } from "./run-config.ts";
import type { MultitaskStrategy, RunCreate, RunCreateStateless, RunRequest } from "./schema.ts";

/** Where a run goes: a thread of the client's, or (stateless) a new one of its own. */
export type RunTarget =
  { readonly kind: "thread"; readonly threadId: string; readonly body: RunCreate } | { readonly kind: "stateless"; readonly body: RunCreateStateless };

/**
 * The run store's request for a validated body. Defaults as the document gives them:
 * `stream_mode` `["values"]`, `multitask_strategy` `enqueue`, `if_not_exists` `reject`; a stateless
 * run makes its thread, which is deleted after it unless `on_completion` is `keep`. `on_disconnect`
 * is `continue` unless the client asks to cancel, as the real server reads it. `headers`, the
 * request's, when a client's HTTP call creates the run: the run's configurable copies some of them
 * (runs/run-config.ts); runs the emulator starts itself, or protocol v2's, copy none.
 */
export function runRequest(target: RunTarget, stepDelayMs: number, headers?: Headers): RunRequest {
  const { body } = target;
  const streamModes: StreamMode[] = body.stream_mode?.length ? body.stream_mode : ["values"];
  const stateful = target.kind === "thread" ? target.body : undefined;
  return {
    runId: crypto.randomUUID(),
    threadId: target.kind === "thread" ? target.threadId : crypto.randomUUID(),
    assistantId: resolveAssistantRef(body.assistant_id),
    assistantRef: body.assistant_id,
    context: body.context,
    metadata: body.metadata ?? {},
    input: body.input ?? null,
    config: body.config ?? {},
    headers: configurableHeaders(headers),
    streamModes,
    multitaskStrategy: (stateful?.multitask_strategy ?? "enqueue") satisfies MultitaskStrategy,
    ifNotExists: stateful ? (stateful.if_not_exists ?? "reject") : "create",
    resumable: body.stream_resumable ?? false,
    onDisconnect: body.on_disconnect ?? "continue",
    temporary: target.kind === "stateless" && (target.body.on_completion ?? "delete") === "delete",
    stepDelayMs,
    afterSeconds: body.after_seconds ?? 0,
    command: body.command,
    interruptBefore: body.interrupt_before,
    interruptAfter: body.interrupt_after,
  };
}
