import { z } from "zod";
import { JsonObjectSchema, JsonValueSchema, type JsonObject } from "../../shared/pydantic/json.ts";
import { optionalField } from "../../shared/pydantic/optional.ts";
import { notEmulated } from "../../shared/pydantic/value-error.ts";
import { ConfigSchema } from "../config-field.ts";
import type { ThreadValues } from "../graphs/graph.ts";
import { STREAM_MODES } from "./execute.ts";

/**
 * A run option the emulator does not implement: refused when set (422), because ignoring it
 * would run something other than what the client asked for. Absent, null or empty is fine.
 */
const unsupported = (why: string) => notEmulated(`not supported by the agent-server emulator: ${why}`);

/**
 * RunCreateStateful (POST /threads/{thread_id}/runs/stream). `assistant_id` is an assistant UUID
 * or a graph id; any other string is an unknown assistant (404), as the schema allows any graph
 * name. `stream_mode` is a mode or a list of modes (default `["values"]`). Every field the API
 * types is checked against its type, including those the emulator takes and does not act on
 * (`stream_subgraphs`: the graphs have no subgraphs; `stream_resumable`, `checkpoint_during`,
 * `durability`: there are no checkpoints to keep; `feedback_keys`: there is no feedback).
 */
export const RunCreate = z.object({
  assistant_id: z.string(),
  input: JsonValueSchema.optional(),
  metadata: optionalField(JsonObjectSchema),
  config: optionalField(ConfigSchema),
  context: optionalField(JsonObjectSchema),
  stream_mode: optionalField(z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.enum(STREAM_MODES)))),
  stream_subgraphs: optionalField(z.boolean()),
  stream_resumable: optionalField(z.boolean()),
  feedback_keys: optionalField(z.array(z.string())),
  multitask_strategy: optionalField(z.enum(["reject", "rollback", "interrupt", "enqueue"])),
  if_not_exists: optionalField(z.enum(["create", "reject"])),
  on_disconnect: optionalField(z.enum(["cancel", "continue"])),
  checkpoint_during: optionalField(z.boolean()),
  durability: optionalField(z.enum(["sync", "async", "exit"])),
  command: unsupported("the emulated graphs never interrupt, so there is nothing to resume"),
  interrupt_before: unsupported("the emulated graphs run without interrupts"),
  interrupt_after: unsupported("the emulated graphs run without interrupts"),
  checkpoint: unsupported("threads keep only their latest values, not a checkpoint history"),
  checkpoint_id: unsupported("threads keep only their latest values, not a checkpoint history"),
  after_seconds: unsupported("runs start at once"),
  webhook: unsupported("the emulator makes no outbound calls"),
});
export type RunCreate = z.output<typeof RunCreate>;

export type RunStatus = "pending" | "running" | "error" | "success" | "timeout" | "interrupted";

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

/** What the route asks the run store to start. */
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
  readonly kwargs: JsonObject;
  readonly multitaskStrategy: string;
  readonly ifNotExists: "create" | "reject";
  /** How long the run may hold the thread busy before another run may take it over. */
  readonly leaseMs: number;
}

/** A started run: the record, and what the graph runs with (read once, at the start). */
export interface RunStart {
  readonly run: Run;
  readonly graphId: string;
  readonly context: JsonObject;
  readonly values: ThreadValues;
}
