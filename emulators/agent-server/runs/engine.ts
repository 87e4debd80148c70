import type { ThreadValues } from "../graphs/graph.ts";
import { findGraph } from "../graphs/registry.ts";
import type { JsonObject, JsonValue } from "../../shared/pydantic/json.ts";
import type { CheckpointLedger } from "../threads/checkpoints.ts";
import type { ThreadStore } from "../threads/store.ts";
import type { Wakeable } from "../alarms.ts";
import type { EmulatorClock } from "../system/clock.ts";
import type { RunEventLog } from "./event-log.ts";
import { pendingInterrupts } from "../threads/thread-state.ts";
import type { CheckedCommand } from "./command-check.ts";
import { executeRun, INTERRUPT, START, type Breakpoints, type RunCommand, type RunHooks, type RunOutcome, type RunPlan, type StreamMode } from "./execute.ts";
import { checkpointMetadataOf } from "./run-config.ts";
import type { RunObserver } from "./run-observer.ts";
import type { RunTable } from "./run-table.ts";
import type { CancelAction, Run, RunStatus } from "./schema.ts";

/**
 * While runs are pending or running, the object's alarm rings this often. It is what brings the
 * runs back after the object was evicted or restarted mid-run (they go on from their last
 * checkpoint, as a new attempt); while the object lives, the runs are already going and a ring
 * finds nothing to do.
 */
export const HEARTBEAT_MS = 10_000;

/** Why a run stopped early: a cancel's action, or its thread was deleted under it. */
type StopReason = CancelAction | "deleted";

/** What the engine works with, all inside the state object. */
export interface EngineParts {
  readonly storage: DurableObjectStorage;
  readonly runs: RunTable;
  readonly threads: ThreadStore;
  readonly checkpoints: CheckpointLedger;
  readonly events: RunEventLog;
  /** Whose time a run's step delay and `after_seconds` pass on (a test moves it: system/clock.ts). */
  readonly clock: Pick<EmulatorClock, "sleep" | "now">;
  /** Called when the set of runs in flight may have changed (the alarm is re-armed). */
  readonly changed: () => void;
  /** Follows every run as it goes (protocol v2's events). */
  readonly observer?: RunObserver;
}

/**
 * Runs execute here, in the state object, not in the request that created them: a run is stored
 * `pending` and this engine drives it to its end whether or not anyone is listening. One driver
 * per thread takes the thread's runs one at a time, oldest first (so `enqueue` is a queue), and
 * every step is a checkpoint and a saved event before the next begins. Why the object and not the
 * Worker: the object outlives any one request (a background run's request is over at once, a
 * stream's client may hang up), serializes everything a thread's runs touch, and its alarm brings
 * it back if it was evicted mid-run, when a run goes on from its last checkpoint.
 */
export class RunEngine implements Wakeable {
  readonly #parts: EngineParts;
  /** Threads that have a driver. */
  readonly #driving = new Set<string>();
  /** Running runs' cancel signals, by run id. */
  readonly #running = new Map<string, AbortController>();
  /** Who waits for a run to be over (wait, join), by run id, and is handed its outcome. */
  readonly #waiters = new Map<string, Array<(outcome: JsonValue | undefined) => void>>();
  /** Drivers waiting for a run's `after_seconds` to pass, by thread: a cancel wakes them early. */
  readonly #delays = new Map<string, AbortController>();

  constructor(parts: EngineParts) {
    this.#parts = parts;
  }

  /** Starts a driver for every thread that has runs to do and none driving it. */
  kick(): void {
    for (const run of this.#parts.runs.allInflight()) this.#drive(run.thread_id);
    this.#parts.changed();
  }

  /**
   * Cancels a run: a pending one at once (`interrupt` marks it interrupted, `rollback` deletes
   * it); a running one stops before its next step (the engine finishes it as the action says). A
   * run that is over is left as it is, as the real server leaves it.
   */
  cancel(run: Run, action: CancelAction): void {
    const { runs, events } = this.#parts;
    if (run.status === "pending") {
      let outcome: JsonValue | undefined;
      if (action === "rollback") runs.delete(run.run_id);
      else {
        outcome = this.#threadValues(run.thread_id) as JsonValue;
        runs.setStatus(run.run_id, "interrupted");
        runs.setResult(run.run_id, outcome);
      }
      events.endRun(run.run_id);
      this.#settleThread(run.thread_id, false);
      this.#notify(run.run_id, outcome);
      // The thread's driver may be waiting for this run's start time: the queue moves on now.
      this.#delays.get(run.thread_id)?.abort();
    } else if (run.status === "running") {
      runs.setCancel(run.run_id, action);
      // A run whose object restarted has no driver yet: it sees the cancel when it resumes.
      this.#running.get(run.run_id)?.abort(action);
    }
  }

  /**
   * Deletes a run that is over, with its checkpoints and events: the thread's values go back to
   * its latest remaining checkpoint (its status stays).
   */
  forgetRun(run: Run): void {
    const { runs, checkpoints, events, threads } = this.#parts;
    checkpoints.deleteRun(run.run_id);
    events.deleteRun(run.run_id);
    runs.delete(run.run_id);
    const thread = threads.find(run.thread_id);
    if (thread) threads.settle(run.thread_id, thread.status, this.#threadValues(run.thread_id, true));
  }

  /** The thread is being deleted: its runs stop where they are and everyone waiting is told. */
  forgetThread(threadId: string): void {
    for (const run of this.#parts.runs.inflight(threadId)) {
      this.#running.get(run.run_id)?.abort("deleted" satisfies StopReason);
      this.#parts.events.endRun(run.run_id);
      this.#notify(run.run_id, undefined);
    }
    this.#delays.get(threadId)?.abort();
  }

  /**
   * Resolves once the run is over with what wait and join answer: the values it left, or
   * `{"__error__": ...}`; undefined when it was rolled back or its thread deleted. Registered at
   * once, so a run that ends (and whose stateless thread goes) right after still hands it over.
   */
  settled(runId: string): Promise<JsonValue | undefined> {
    const run = this.#parts.runs.find(runId);
    if (!run) return Promise.resolve(undefined);
    if (run.status !== "pending" && run.status !== "running") return Promise.resolve(this.#parts.runs.progress(runId)?.result);
    return new Promise((resolve) => {
      this.#waiters.set(runId, [...(this.#waiters.get(runId) ?? []), resolve]);
    });
  }

  nextWake(now: number): number | undefined {
    return this.#parts.runs.allInflight().length > 0 ? now + HEARTBEAT_MS : undefined;
  }

  wake(): void {
    this.kick();
  }

  /** Takes the thread's runs one at a time until none is left. */
  #drive(threadId: string): void {
    if (this.#driving.has(threadId)) return;
    this.#driving.add(threadId);
    void (async () => {
      for (;;) {
        const claimed = this.#claim(threadId);
        // Decided in the same synchronous step as the claim, so a run created afterwards finds
        // no driver and starts one.
        if (!claimed) return void this.#driving.delete(threadId);
        if ("waitMs" in claimed) await this.#delay(threadId, claimed.waitMs);
        else await this.#execute(claimed.run, claimed.attempt);
      }
    })();
  }

  /**
   * The thread's next run: one left running by a restart, else the oldest pending; or how long to
   * wait when that one was created with `after_seconds` and its time has not come (the runs queued
   * behind it wait too: the queue keeps its order).
   */
  #claim(threadId: string): { run: Run; attempt: number } | { waitMs: number } | undefined {
    const { runs, clock } = this.#parts;
    for (;;) {
      const inflight = runs.inflight(threadId);
      const run = inflight.find((r) => r.status === "running") ?? inflight[0];
      if (!run) return undefined;
      const progress = runs.progress(run.run_id);
      const waitMs = progress && run.status === "pending" ? progress.startAt - clock.now() : 0;
      if (waitMs > 0) return { waitMs };
      if (progress) return { run, attempt: runs.start(run.run_id) };
      // Left in flight by an emulator before the engine (state kept by `npm start`): it has
      // nothing to resume from, so it timed out.
      runs.setStatus(run.run_id, "timeout");
      this.#settleThread(threadId, false);
    }
  }

  /** Waits on the object's clock, or until a cancel or the thread's deletion cuts it short. */
  async #delay(threadId: string, ms: number): Promise<void> {
    const controller = new AbortController();
    this.#delays.set(threadId, controller);
    try {
      await this.#parts.clock.sleep(ms, controller.signal);
    } finally {
      this.#delays.delete(threadId);
    }
  }

  async #execute(run: Run, attempt: number): Promise<void> {
    const { runs, checkpoints, events } = this.#parts;
    const progress = runs.progress(run.run_id)!;
    const controller = new AbortController();
    this.#running.set(run.run_id, controller);
    if (progress.cancelAction) controller.abort(progress.cancelAction);

    const graph = findGraph(progress.graphId);
    const start = this.#startingPoint(run);
    let parentId = start.parentId;
    // As the real server's checkpointer writes it: the run's configurable, then its metadata and ids.
    const metadata: JsonObject = {
      ...checkpointMetadataOf(run.kwargs.config),
      ...run.metadata,
      run_id: run.run_id,
      thread_id: run.thread_id,
      graph_id: progress.graphId,
      assistant_id: run.assistant_id,
      run_attempt: attempt,
    };
    this.#parts.observer?.started(run, progress.graphId, attempt);
    const hooks: RunHooks = {
      emit: (event) => {
        events.append(run.thread_id, run.run_id, event);
        this.#parts.observer?.emitted(run, event);
      },
      pause: () => this.#parts.clock.sleep(progress.stepDelayMs, controller.signal),
      newId: () => crypto.randomUUID(),
      checkpoint: (step) => {
        const saved = checkpoints.append(run.thread_id, { parentId, runId: run.run_id, ...step, metadata });
        parentId = saved.checkpoint_id;
        return saved;
      },
      failed: (node, error) => {
        if (parentId) checkpoints.failTask(run.thread_id, parentId, node, error);
      },
      interrupted: (node, interrupts) => {
        if (parentId) checkpoints.interruptTask(run.thread_id, parentId, node, interrupts);
      },
      hold: () => untilAborted(controller.signal),
      signal: controller.signal,
    };

    let outcome: RunOutcome;
    try {
      if (!graph) throw new Error(`Graph '${progress.graphId}' is not deployed.`);
      if (start.done) outcome = { status: "success", values: start.values };
      else {
        const from = start.parentId ? checkpoints.get(run.thread_id, start.parentId) : undefined;
        const plan: RunPlan = {
          runId: run.run_id,
          graph,
          context: (run.kwargs.context ?? {}) as Record<string, unknown>,
          values: start.values,
          input: run.kwargs.input,
          streamModes: (run.kwargs.stream_mode ?? ["values"]) as StreamMode[],
          attempt,
          metadata,
          ...(start.next ? { resume: { next: start.next } } : {}),
          ...(from ? { from } : {}),
          ...(start.command ? { command: start.command } : {}),
          ...breakpoints(run),
        };
        outcome = await executeRun(plan, hooks);
      }
    } catch (error) {
      // Not a graph failure (those are outcomes) but the emulator's own: say so, free the thread.
      console.log(JSON.stringify({ event: "agent_server_run_failed", run_id: run.run_id, error: String(error) }));
      const data = { error: "InternalError", message: "The emulator failed while running this run; the thread keeps its last checkpoint." };
      if (!controller.signal.aborted) events.append(run.thread_id, run.run_id, { event: "error", data });
      outcome = { status: "error", values: start.values, error: data };
    } finally {
      this.#running.delete(run.run_id);
    }
    this.#finish(run, outcome, controller.signal.aborted ? (controller.signal.reason as StopReason) : undefined);
  }

  /**
   * Where a run starts: after its own last checkpoint when it already ran (a restart; a command's
   * update and resume were used by then); with a `command`, from the thread's last checkpoint, at
   * `goto` or the nodes it names next (the paused node gets the resume value); from the thread's
   * last checkpoint's next nodes when it has no input and the last run stopped early; otherwise
   * from its input, on the thread's current values.
   */
  #startingPoint(run: Run): { values: ThreadValues; parentId: string | null; next?: readonly string[]; done?: boolean; command?: RunCommand } {
    const { checkpoints } = this.#parts;
    const own = checkpoints.latestOfRun(run.run_id);
    if (own) return { values: own.values, parentId: own.checkpoint_id, next: own.next, done: own.next.length === 0 };
    const latest = checkpoints.latest(run.thread_id);
    const command = run.kwargs.command as CheckedCommand | undefined;
    if (command) {
      const next = command.goto !== undefined ? [command.goto] : (latest?.next.filter((node) => node !== START) ?? []);
      const resume = command.resume !== undefined && next[0] !== undefined ? { node: next[0], value: command.resume } : undefined;
      return {
        values: latest?.values ?? this.#threadValues(run.thread_id),
        parentId: latest?.checkpoint_id ?? null,
        next,
        command: { ...(command.update ? { update: command.update } : {}), ...(resume ? { resume } : {}) },
      };
    }
    const input = run.kwargs.input;
    if ((input === null || input === undefined) && latest && latest.next.length > 0 && latest.next[0] !== START) {
      return { values: latest.values, parentId: latest.checkpoint_id, next: latest.next };
    }
    return { values: latest?.values ?? this.#threadValues(run.thread_id), parentId: latest?.checkpoint_id ?? null };
  }

  /**
   * The run is over: its status and what wait/join answer are saved, the thread takes its values,
   * and its streams and waiters are released. An interrupted run keeps its checkpoints (its
   * progress); a rolled-back run is deleted with them, as if it never ran.
   */
  #finish(run: Run, outcome: RunOutcome, stopped: StopReason | undefined): void {
    const { storage, runs, checkpoints, events, threads } = this.#parts;
    let temporary = false;
    let pausedThread = false;
    let result: JsonValue | undefined;
    let finalStatus: RunStatus | undefined;
    if (stopped !== "deleted" && runs.find(run.run_id)) {
      storage.transactionSync(() => {
        temporary = runs.progress(run.run_id)?.temporary ?? false;
        let failed = false;
        if (stopped === "rollback") {
          checkpoints.deleteRun(run.run_id);
          events.deleteRun(run.run_id);
          runs.delete(run.run_id);
        } else {
          const paused = !stopped && outcome.status === "interrupted";
          const status = stopped === "interrupt" || paused ? "interrupted" : outcome.status === "error" ? "error" : "success";
          failed = status === "error";
          const values = this.#threadValues(run.thread_id, true);
          // As the real server's wait answers a paused run: its values with the interrupts it paused on.
          result = (failed ? { __error__: outcome.error } : outcome.interrupts?.length ? { ...values, [INTERRUPT]: outcome.interrupts } : values) as JsonValue;
          runs.setStatus(run.run_id, status);
          runs.setResult(run.run_id, result);
          finalStatus = status;
          pausedThread = paused;
        }
        this.#settleThread(run.thread_id, failed, pausedThread);
        events.append(run.thread_id, run.run_id, { event: "metadata", data: { status: "run_done", run_id: run.run_id } }, "thread");
      });
    }
    events.endRun(run.run_id);
    this.#parts.observer?.finished(run, finalStatus, { interrupts: outcome.interrupts, error: outcome.error });
    this.#notify(run.run_id, result);
    // A stateless run's thread goes with it (on_completion: delete), once nothing else queues on it.
    if (temporary && runs.inflight(run.thread_id).length === 0) threads.delete(run.thread_id);
    this.#parts.changed();
  }

  /**
   * The thread's status after a run ended or left the queue, and the values its checkpoints hold.
   * It is `interrupted` when a run paused with nodes still to run, or while its latest checkpoint
   * holds interrupts no run has resumed; its `interrupts` are those, by task id.
   */
  #settleThread(threadId: string, failed: boolean, paused = false): void {
    const busy = this.#parts.runs.inflight(threadId).length > 0;
    const latest = this.#parts.checkpoints.latest(threadId);
    const pending = pendingInterrupts(latest);
    const waiting = (paused && (latest?.next.length ?? 0) > 0) || Object.keys(pending).length > 0;
    const status = busy ? "busy" : failed ? "error" : waiting ? "interrupted" : "idle";
    this.#parts.threads.settle(threadId, status, this.#threadValues(threadId, true), status === "interrupted" ? pending : {});
  }

  /** The thread's values: its latest checkpoint's, or (no checkpoint yet) the stored ones. */
  #threadValues(threadId: string, fromCheckpoints = false): ThreadValues {
    const latest = fromCheckpoints ? this.#parts.checkpoints.latest(threadId) : undefined;
    return latest?.values ?? this.#parts.threads.find(threadId)?.values ?? {};
  }

  #notify(runId: string, outcome: JsonValue | undefined): void {
    const waiters = this.#waiters.get(runId) ?? [];
    this.#waiters.delete(runId);
    for (const resolve of waiters) resolve(outcome);
  }
}

/** Resolves when the run is cancelled (a held run waits for nothing else). */
function untilAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

/** The run's `interrupt_before` / `interrupt_after`, as the plan takes them. */
function breakpoints(run: Run): { interruptBefore?: Breakpoints; interruptAfter?: Breakpoints } {
  const before = run.kwargs.interrupt_before as Breakpoints | undefined;
  const after = run.kwargs.interrupt_after as Breakpoints | undefined;
  return { ...(before ? { interruptBefore: before } : {}), ...(after ? { interruptAfter: after } : {}) };
}
