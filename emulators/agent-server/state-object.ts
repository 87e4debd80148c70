import { DurableObject } from "cloudflare:workers";
import type { AgentServerBindings } from "./env.ts";
import { deploymentOfObject, RETIRED } from "./state-access.ts";
import type { AgentServerStateRpc } from "./state-rpc.ts";
import { AssistantStore } from "./assistants/store.ts";
import { RunEngine } from "./runs/engine.ts";
import { RunEventLog } from "./runs/event-log.ts";
import { RunTable } from "./runs/run-table.ts";
import { RunStore } from "./runs/store.ts";
import { migrate, seedDefaultAssistants } from "./storage.ts";
import { CheckpointLedger } from "./threads/checkpoints.ts";
import { ThreadStateStore } from "./threads/state-store.ts";
import { ThreadStore } from "./threads/store.ts";
import { ThreadExpiry, threadSweep } from "./threads/ttl.ts";
import { AlarmClock } from "./alarms.ts";
import { createAgentServer } from "./app.ts";
import { cronAlarm } from "./crons/cron-alarm.ts";
import { CronStore } from "./crons/cron-store.ts";
import { parseSchedule } from "./crons/schedule.ts";
import { ItemStore } from "./store/item-store.ts";
import { EmulatorClock } from "./system/clock.ts";
import { QueueStore } from "./system/queue-store.ts";
import { ThreadQueries } from "./threads/search-store.ts";
import { pendingInterruptIds, ProtocolCommands } from "./protocols/v2/commands.ts";
import { ProtocolEventBuffer } from "./protocols/v2/event-buffer.ts";
import { ProtocolRunEvents } from "./protocols/v2/run-events.ts";
import { ProtocolSockets } from "./protocols/v2/sockets.ts";
import { ProtocolStore } from "./protocols/v2/store.ts";
import { stepDelayMs } from "./settings.ts";

/**
 * All agent-server state (assistants and their versions, threads, runs, store items, crons) in one
 * SQLite-backed Durable Object, so concurrent writers are serialized and version numbers never gap
 * or repeat.
 * Every store method is synchronous SQL (no await inside), so each call is one atomic step.
 * Callers reach a store with promise pipelining, one round trip: `using assistants =
 * assistantsOf(c.env); await assistants.patch(id, change)`.
 */
export class AgentServerState extends DurableObject<AgentServerBindings> implements AgentServerStateRpc {
  readonly #assistants: AssistantStore;
  readonly #threads: ThreadStore;
  readonly #runs: RunStore;
  readonly #threadState: ThreadStateStore;
  /** Runs execute here, in the object, not in the requests that create them (runs/engine.ts). */
  readonly #engine: RunEngine;
  readonly #threadQueries: ThreadQueries;
  readonly #items: ItemStore;
  readonly #crons: CronStore;
  readonly #queue: QueueStore;
  readonly #alarm: AlarmClock;
  /** Protocol v2: HTTP commands and event streams, and the sockets this object accepts. */
  readonly #protocol: ProtocolStore;
  readonly #sockets: ProtocolSockets;
  /** What is due when (store TTLs, crons) is read from this clock, which tests move forward. */
  readonly clock = new EmulatorClock();

  constructor(ctx: DurableObjectState, env: AgentServerBindings) {
    super(ctx, env);
    // Tables and default assistants exist before the first call is taken (the constructor is
    // synchronous, so no call can interleave).
    migrate(ctx.storage.sql);
    seedDefaultAssistants(ctx.storage.sql);
    // Threads are created below; the assistant store reaches them only when an assistant is deleted.
    this.#assistants = new AssistantStore(ctx.storage, (threadId) => void this.#threads.delete(threadId));
    // A deleted thread takes its runs (stopped), checkpoints and events with it.
    const expiry = new ThreadExpiry(ctx.storage.sql, this.clock);
    this.#threads = new ThreadStore(ctx.storage, {
      forget: (threadId) => {
        this.#engine.forgetThread(threadId);
        runTable.deleteThread(threadId);
        checkpoints.deleteThread(threadId);
        events.deleteThread(threadId);
        protocolEvents.deleteThread(threadId);
        this.#sockets.closeThread(threadId);
      },
      expiry,
      rearm: () => this.#alarm.rearm(),
    });
    const runTable = new RunTable(ctx.storage.sql);
    const checkpoints = new CheckpointLedger(ctx.storage.sql);
    const events = new RunEventLog(ctx.storage.sql);
    const waitUntil = (work: Promise<unknown>) => ctx.waitUntil(work);
    // Protocol v2's events are written as the engine drives each run, and reach the sockets at once.
    const protocolEvents = new ProtocolEventBuffer(ctx.storage.sql, (threadId, event) => this.#sockets.publish(threadId, event));
    const observer = new ProtocolRunEvents(
      protocolEvents,
      (threadId) => pendingInterruptIds(checkpoints, threadId),
      () => this.clock.now(),
    );
    this.#engine = new RunEngine({
      storage: ctx.storage,
      runs: runTable,
      threads: this.#threads,
      checkpoints,
      events,
      clock: this.clock,
      changed: () => this.#alarm.rearm(),
      observer,
    });
    this.#runs = new RunStore({
      storage: ctx.storage,
      waitUntil,
      table: runTable,
      threads: this.#threads,
      assistants: this.#assistants,
      events,
      engine: this.#engine,
      clock: this.clock,
    });
    this.#threadState = new ThreadStateStore({ storage: ctx.storage, waitUntil, threads: this.#threads, checkpoints, runs: runTable, events });
    this.#threadQueries = new ThreadQueries(ctx.storage, this.#threads);
    const commands = new ProtocolCommands({ threads: this.#threads, runs: this.#runs, runTable, checkpoints, threadState: this.#threadState });
    this.#sockets = new ProtocolSockets(ctx, { threads: this.#threads, buffer: () => protocolEvents, commands, stepDelayMs: () => stepDelayMs(env) });
    this.#protocol = new ProtocolStore({
      buffer: protocolEvents,
      commands,
      sleep: (ms, signal) => this.clock.sleep(ms, signal),
      waitUntil,
    });
    this.#items = new ItemStore(ctx.storage.sql, this.clock);
    this.#queue = new QueueStore(ctx.storage.sql);
    this.#alarm = new AlarmClock(ctx.storage);
    this.#crons = new CronStore(ctx.storage, {
      threads: this.#threads,
      assistants: this.#assistants,
      clock: this.clock,
      parse: parseSchedule,
      rearm: () => this.#alarm.rearm(),
    });
    this.#alarm.add(cronAlarm(this.#crons, this.clock, (request) => this.#send(request)));
    this.#alarm.add(this.#engine);
    // Threads whose TTL ran out are deleted as DELETE /threads/{thread_id} deletes them.
    this.#alarm.add(threadSweep(expiry, this.clock, (threadId) => void this.#threads.delete(threadId)));
    // Runs that were in flight when the object last stopped go on from their last checkpoint.
    this.#engine.kick();
  }

  /**
   * Where this object's crons start their runs: the Worker's own API for the shared agent server;
   * for a deployment's object, the same API on that deployment's state (its URL takes only the
   * workspace's callers, and a cron acts for the deployment itself).
   */
  #send(request: Request): Promise<Response> {
    const deploymentId = deploymentOfObject(this.ctx.id.name);
    if (deploymentId === undefined) return this.ctx.exports.default.fetch(request);
    return Promise.resolve(createAgentServer().fetch(request, { ...this.env, deploymentId }));
  }

  /**
   * Empties a deleted deployment's object: every table and the alarm go, then the object is reset
   * (`ctx.abort`), so no run still stepping in its memory writes on, and anything reaching it again
   * finds it as new. The registry already refuses its URL (deployments/provisioning.ts). The reset
   * fails this call by design: the caller expects that.
   */
  async retire(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.ctx.abort(RETIRED);
  }

  /** Protocol v2 socket upgrades (GET /threads/{thread_id}/stream/events), accepted here. */
  override fetch(request: Request): Response {
    return this.#sockets.accept(request);
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer): void {
    this.#sockets.message(socket, message);
  }

  override webSocketClose(socket: WebSocket, code: number, reason: string): void {
    this.#sockets.closed(socket, code, reason);
  }

  override webSocketError(socket: WebSocket): void {
    this.#sockets.errored(socket);
  }

  /** The one alarm rings for everything that asked to be woken (alarms.ts). */
  override async alarm(): Promise<void> {
    await this.#alarm.ring();
  }

  assistants(): AssistantStore {
    return this.#assistants;
  }
  threads(): ThreadStore {
    return this.#threads;
  }
  runs(): RunStore {
    return this.#runs;
  }
  threadState(): ThreadStateStore {
    return this.#threadState;
  }
  threadQueries(): ThreadQueries {
    return this.#threadQueries;
  }
  items(): ItemStore {
    return this.#items;
  }
  crons(): CronStore {
    return this.#crons;
  }
  protocol(): ProtocolStore {
    return this.#protocol;
  }
  // Not `queue()`: that name is the Queues consumer handler, which RPC does not expose.
  runQueue(): QueueStore {
    return this.#queue;
  }
}
