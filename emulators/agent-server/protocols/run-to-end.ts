import { ok } from "../../shared/result.ts";
import { stepDelayMs } from "../settings.ts";
import type { AgentServerBindings } from "../env.ts";
import { runsOf } from "../state-access.ts";
import { runRequest } from "../runs/request.ts";
import { RunCreate, RunCreateStateless } from "../runs/schema.ts";

/** A run the protocols start: stateless (MCP's tool call) or on a thread made if missing (A2A's context). */
export type ProtocolRun =
  | { readonly kind: "stateless"; readonly assistantId: string; readonly input: unknown }
  | { readonly kind: "thread"; readonly threadId: string; readonly assistantId: string; readonly input: unknown };

/**
 * Starts an assistant's run as `POST /runs/wait` (stateless) or `POST /threads/{id}/runs/wait` with
 * `if_not_exists: create` would, through the same run store and engine, and resolves with the Run
 * as created and its outcome to await (the values, or `{"__error__": ...}`, once it is over; dispose
 * of it with `using`). A refusal (unknown assistant: 404) is returned before anything runs.
 */
export async function startRun(env: AgentServerBindings, run: ProtocolRun) {
  const delay = stepDelayMs(env);
  const request =
    run.kind === "stateless"
      ? runRequest({ kind: "stateless", body: RunCreateStateless.parse({ assistant_id: run.assistantId, input: run.input }) }, delay)
      : runRequest(
          { kind: "thread", threadId: run.threadId, body: RunCreate.parse({ assistant_id: run.assistantId, input: run.input, if_not_exists: "create" }) },
          delay,
        );
  using runs = runsOf(env);
  const created = await runs.create(request, { outcome: true });
  if (!created.ok) return created;
  return ok({ run: created.value.run, outcome: created.value.outcome! });
}
