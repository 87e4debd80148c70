import { z } from "zod";
import { JsonObjectSchema, JsonValueSchema, type JsonObject } from "../../shared/pydantic/json.ts";
import { optionalField } from "../../shared/pydantic/optional.ts";
import { notEmulated } from "../../shared/pydantic/value-error.ts";
import { ConfigSchema } from "../config-field.ts";
import { STREAM_MODES, type StreamMode } from "./execute.ts";

/**
 * A run option the emulator does not implement: refused when set (422), because ignoring it
 * would run something other than what the client asked for. Absent, null or empty is fine.
 */
const unsupported = (why: string) => notEmulated(`not supported by the agent-server emulator: ${why}`);

export const MULTITASK_STRATEGIES = ["reject", "rollback", "interrupt", "enqueue"] as const;
export type MultitaskStrategy = (typeof MULTITASK_STRATEGIES)[number];

/** What a cancel does to a run: stop it keeping its progress, or stop it and delete it. */
export const CANCEL_ACTIONS = ["interrupt", "rollback"] as const;
export type CancelAction = (typeof CANCEL_ACTIONS)[number];

/** `interrupt_before` / `interrupt_after`: `"*"` (every node) or a list of node names. */
const BreakpointsSchema = z.union([z.literal("*"), z.array(z.string())]);

/** Send: a node to go to with its own input (accepted as typed; goto with a Send is refused by the run store). */
const SendSchema = z.object({ node: z.string(), input: JsonValueSchema });

/**
 * Command (`command` on a run): `resume`, a value for the node that paused; `update`, values to
 * write first (an object, or a list of `[key, value]` pairs as LangGraph takes it); `goto`, the
 * node(s) to run next, by name or as Sends. Null fields count as absent.
 */
export const RunCommandSchema = z.object({
  update: optionalField(z.union([JsonObjectSchema, z.array(JsonValueSchema)])),
  resume: JsonValueSchema.optional(),
  goto: optionalField(z.union([z.string(), SendSchema, z.array(z.union([z.string(), SendSchema]))])),
});
export type RunCommandBody = z.output<typeof RunCommandSchema>;

/**
 * The fields every run creation takes (RunCreateStateful and RunCreateStateless). `assistant_id`
 * is an assistant UUID or a graph id; any other string is an unknown assistant (404), as the schema
 * allows any graph name. `stream_mode` is a mode or a list of modes (default `["values"]`). Every
 * field the API types is checked against its type, including those the emulator takes and does
 * not act on (`stream_subgraphs`: the graphs have no subgraphs; `checkpoint_during`, `durability`:
 * every step is checkpointed anyway; `feedback_keys`: there is no feedback).
 */
const runFields = {
  assistant_id: z.string(),
  input: JsonValueSchema.optional(),
  metadata: optionalField(JsonObjectSchema),
  config: optionalField(ConfigSchema),
  context: optionalField(JsonObjectSchema),
  stream_mode: optionalField(z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.enum(STREAM_MODES)))),
  stream_subgraphs: optionalField(z.boolean()),
  stream_resumable: optionalField(z.boolean()),
  feedback_keys: optionalField(z.array(z.string())),
  on_disconnect: optionalField(z.enum(["cancel", "continue"])),
  checkpoint_during: optionalField(z.boolean()),
  durability: optionalField(z.enum(["sync", "async", "exit"])),
  command: optionalField(RunCommandSchema),
  interrupt_before: optionalField(BreakpointsSchema),
  interrupt_after: optionalField(BreakpointsSchema),
  /** The run waits `pending` this long before its thread takes it (runs/engine.ts). */
  after_seconds: optionalField(z.number().nonnegative()),
  webhook: unsupported("the emulator makes no outbound calls"),
};

/**
 * RunCreateStateful (POST /threads/{thread_id}/runs, /runs/stream, /runs/wait). A run continues
 * from the thread's latest checkpoint; `checkpoint`/`checkpoint_id` (another starting point) are
 * refused rather than ignored.
 */
export const RunCreate = z.object({
  ...runFields,
  multitask_strategy: optionalField(z.enum(MULTITASK_STRATEGIES)),
  if_not_exists: optionalField(z.enum(["create", "reject"])),
  checkpoint: unsupported("a run starts from the thread's latest checkpoint; fork with POST /threads/{thread_id}/state instead"),
  checkpoint_id: unsupported("a run starts from the thread's latest checkpoint; fork with POST /threads/{thread_id}/state instead"),
});
export type RunCreate = z.output<typeof RunCreate>;

/**
 * RunCreateStateless (POST /runs, /runs/stream, /runs/wait, each item of /runs/batch): a run on
 * a new thread of its own, deleted when the run ends unless `on_completion` is `keep`.
 */
export const RunCreateStateless = z.object({
  ...runFields,
  on_completion: optionalField(z.enum(["delete", "keep"])),
});
export type RunCreateStateless = z.output<typeof RunCreateStateless>;

/** RunBatchCreate (POST /runs/batch): at least one stateless run. */
export const RunBatchCreate = z.array(RunCreateStateless).min(1);

export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";
export const RUN_STATUSES = ["pending", "running", "error", "success", "timeout", "interrupted"] as const satisfies readonly RunStatus[];

/** The Run resource (GET /threads/{thread_id}/runs/{run_id}). */
export interface Run {
  readonly run_id: string;
  readonly thread_id: string;
  readonly assistant_id: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly status: RunStatus;
  readonly metadata: JsonObject;
  readonly kwargs: JsonObject;
  readonly multitask_strategy: string;
}

/** What a route asks the run store to create. */
export interface RunRequest {
  readonly runId: string;
  readonly threadId: string;
  /** The assistant UUID the body names (a graph id already resolved), or undefined if it names none. */
  readonly assistantId: string | undefined;
  /** `assistant_id` as sent, for the 404 message. */
  readonly assistantRef: string;
  /** The run's own context, laid over the assistant version's. */
  readonly context: JsonObject | undefined;
  readonly metadata: JsonObject;
  readonly input: unknown;
  readonly config: JsonObject;
  /** The request headers the run's configurable takes (runs/run-config.ts). */
  readonly headers: JsonObject;
  readonly streamModes: readonly StreamMode[];
  readonly multitaskStrategy: MultitaskStrategy;
  readonly ifNotExists: "create" | "reject";
  /** `stream_resumable`: the run's own stream carries event ids and a Location to reconnect to. */
  readonly resumable: boolean;
  readonly onDisconnect: "cancel" | "continue";
  /** A stateless run's thread, deleted when the run ends. */
  readonly temporary: boolean;
  /** Pause before each node step, in ms (AGENT_SERVER_STEP_DELAY_MS, read by the Worker). */
  readonly stepDelayMs: number;
  /** `after_seconds`: how long the run waits before it may start (0: at once). */
  readonly afterSeconds: number;
  /** `command`: go on from the thread's checkpoint (resume, update, goto) instead of from input. */
  readonly command?: RunCommandBody | undefined;
  readonly interruptBefore?: "*" | readonly string[] | undefined;
  readonly interruptAfter?: "*" | readonly string[] | undefined;
}
