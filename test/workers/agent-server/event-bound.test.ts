// Stored run events are bounded per thread (runs/event-log.ts, EVENTS_PER_THREAD): 300 runs on
// one thread keep at most the bound, the oldest pruned first; a late joiner of a pruned run gets
// its metadata and its outcome, a joiner of a recent run its whole stream. Runs step without delay
// in tests (AGENT_SERVER_STEP_DELAY_MS is 0), so the test's time is the runs' own work.
import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { EVENTS_PER_THREAD } from "../../../emulators/agent-server/runs/event-log.ts";
import { stateOf } from "../../../emulators/agent-server/state-access.ts";
import { agentServer, createThread, readEvents, send } from "./support.ts";
import { createRun, join } from "./run-support.ts";
import { agentServerEnv } from "../support/emulator-env.ts";

// The bound is full after 200 runs (5 events each); 100 more show it pruned, oldest first, and hold.
const RUNS = 300;

/** The thread's stored events, counted in the state object's table. */
const storedEvents = (threadId: string) =>
  runInDurableObject(
    stateOf(agentServerEnv),
    (_, ctx: DurableObjectState) => ctx.storage.sql.exec<{ n: number }>("SELECT COUNT(*) AS n FROM run_events WHERE thread_id = ?", threadId).one().n,
  );

// The human message keeps one id, so each run replaces it (add_messages) and the thread's values
// grow by the reply alone.
const input = (n: number) => ({ messages: [{ id: "question", role: "user", content: `run ${n}` }] });

describe("stored run events per thread", () => {
  it(`stay within ${EVENTS_PER_THREAD} over ${RUNS} runs on one thread, oldest pruned`, { timeout: 600_000 }, async () => {
    const thread = await createThread();
    const runIds: string[] = [];
    const highs: number[] = [];
    for (let n = 1; n <= RUNS; n++) {
      const run = await createRun(thread.thread_id, { assistant_id: "agent", input: input(n), stream_mode: ["values", "updates"] });
      runIds.push(run.run_id);
      if (n % 100 === 0) {
        await join(thread.thread_id, run.run_id);
        highs.push(await storedEvents(thread.thread_id));
      }
    }
    // Every run wrote events (metadata, values, updates, values, run_done: 5 each), far beyond the bound ...
    expect(highs[0]).toBe(500);
    // ... and the thread keeps the newest EVENTS_PER_THREAD from the 200th run on.
    expect(highs.slice(1)).toEqual(Array(highs.length - 1).fill(EVENTS_PER_THREAD));

    // A run from the start: its events are gone; a late joiner gets its metadata and its outcome.
    const first = await send("GET", `/threads/${thread.thread_id}/runs/${runIds[0]}/stream`);
    const summary = await readEvents(first);
    expect(summary.map((e) => e.event)).toEqual(["metadata", "values"]);
    expect(summary[0]!.data).toEqual({ run_id: runIds[0], attempt: 1 });
    expect(summary[1]!.data.messages.at(-1).content).toBe("you said: run 1");

    // The last run: its whole stream, from its first event.
    const last = await readEvents(await send("GET", `/threads/${thread.thread_id}/runs/${runIds.at(-1)}/stream`));
    expect(last.map((e) => e.event)).toEqual(["metadata", "values", "updates", "values"]);
    expect(last[2]!.data.agent.messages[0].content).toBe(`you said: run ${RUNS}`);

    // Runs and their outcomes are all still there: only events are pruned.
    expect((await agentServer("GET", `/threads/${thread.thread_id}/runs?limit=1&offset=${RUNS - 1}`)).body[0].run_id).toBe(runIds[0]);
  });
});
