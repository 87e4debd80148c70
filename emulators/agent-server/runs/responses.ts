import type { Context } from "hono";
import type { AgentServerEnv } from "../env.ts";
import type { JsonValue } from "../../shared/pydantic/json.ts";
import type { Result } from "../../shared/result.ts";
import { runsOf } from "../state-access.ts";

const encoder = new TextEncoder();

/**
 * `200 application/json` whose body is written when `result` settles: wait, join and cancel with
 * `wait` answer a run's outcome, and a run may take long. The headers go out at once, as the real
 * server's streamed answer does, so nothing between client and emulator (the gateway's upstream
 * timeout covers the wait for headers) gives up on a long run. Everything that can refuse the
 * request (404, 409, 422) is decided before this is called.
 */
export function settledJson(result: () => Promise<Result<JsonValue>>, headers: Record<string, string> = {}, hangUp?: () => void): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      try {
        const outcome = await result();
        // Only a run deleted under the waiter refuses here; there is no output to give then.
        controller.enqueue(encoder.encode(JSON.stringify(outcome.ok ? outcome.value : {})));
        controller.close();
      } catch (error) {
        // The client may be gone already (the body was cancelled): nothing left to tell.
        try {
          controller.error(error);
        } catch {}
      }
    },
    cancel() {
      hangUp?.();
    },
  });
  return new Response(body, { status: 200, headers: { "content-type": "application/json", ...headers } });
}

/** A stream from the state object, answered with the run's headers added (and another body, if given). */
export function withHeaders(stream: Response, headers: Record<string, string>, body: ReadableStream<Uint8Array> | null = stream.body): Response {
  const merged = new Headers(stream.headers);
  for (const [name, value] of Object.entries(headers)) merged.set(name, value);
  return new Response(body, { status: stream.status, headers: merged });
}

/**
 * The stream's body, calling `hangUp` when the client goes away before it ended. Watched here, in
 * the Worker that answers the client, because that is where a hang-up is seen at once: the state
 * object would only notice it at its next write, and a run may be silent for long.
 */
export function onHangUp(body: ReadableStream<Uint8Array>, hangUp: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      hangUp();
      return reader.cancel(reason);
    },
  });
}

/** Where a run is read (GET), as Content-Location names it. */
export const runPath = (threadId: string, runId: string) => `/threads/${threadId}/runs/${runId}`;

/**
 * A run's event stream as the route answers it: the state object's stream with the run's headers,
 * and, when the client asked for it (`on_disconnect: cancel`, `cancel_on_disconnect`), the run
 * interrupted if the client hangs up before it ends.
 */
export function answerRunStream(
  c: Context<AgentServerEnv>,
  stream: Response,
  run: { readonly threadId: string; readonly runId: string; readonly cancelOnDisconnect: boolean },
  headers: Record<string, string>,
): Response {
  if (!run.cancelOnDisconnect || !stream.body) return withHeaders(stream, headers);
  return withHeaders(stream, headers, onHangUp(stream.body, interruptRun(c, run.threadId, run.runId)));
}

/**
 * Interrupts the run (the client asked for that when it hangs up), outliving the request: the
 * cancel is sent with an RPC stub of its own, and the Worker is kept until it is through.
 */
export function interruptRun(c: Context<AgentServerEnv>, threadId: string, runId: string): () => void {
  const env = c.env;
  return () => {
    const work = (async () => {
      using runs = runsOf(env);
      await runs.cancel(threadId, runId, "interrupt");
    })().catch(() => {});
    try {
      c.executionCtx.waitUntil(work);
    } catch {
      // Called without an execution context (tests calling the app directly): nothing to extend.
    }
  };
}
