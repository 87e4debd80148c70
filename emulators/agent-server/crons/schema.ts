import { z } from "zod";
import { JsonObjectSchema, type JsonObject } from "../../shared/pydantic/json.ts";
import { optionalBody, optionalField } from "../../shared/pydantic/optional.ts";
import { bodyPaging } from "../../shared/pydantic/paging.ts";
import { notEmulated, valueError } from "../../shared/pydantic/value-error.ts";
import { uuid } from "../../shared/pydantic/uuid.ts";
import { ConfigSchema } from "../config-field.ts";
import { STREAM_MODES } from "../runs/execute.ts";
import { isTimezone } from "./schedule.ts";

/**
 * A date-time in a JSON body, as pydantic reads one: ISO 8601 date and time (`T` or a space
 * between them), seconds and fractions optional, an offset or `Z`; without one it is UTC. Read as
 * milliseconds since the epoch.
 */
const dateTime = () =>
  z.string().transform((text, ctx) => {
    const match = /^(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d(?::\d\d(?:\.\d+)?)?)(Z|[+-]\d\d:?\d\d)?$/i.exec(text.trim());
    const ms = match ? Date.parse(`${match[1]}T${match[2]}${normalOffset(match[3])}`) : Number.NaN;
    if (Number.isFinite(ms)) return ms;
    ctx.addIssue({ code: "custom", message: "Input should be a valid datetime", params: { type: "datetime_parsing" } });
    return z.NEVER;
  });

const normalOffset = (offset: string | undefined) =>
  offset === undefined || offset.toUpperCase() === "Z" ? "Z" : offset.includes(":") ? offset : `${offset.slice(0, 3)}:${offset.slice(3)}`;

const unsupported = (why: string) => notEmulated(`not supported by the agent-server emulator: ${why}`);

/** `timezone`: an IANA time zone name the schedule is read in (absent or null: UTC). */
const timezone = () =>
  optionalField(z.string()).superRefine((zone, ctx) => {
    if (zone !== undefined && !isTimezone(zone))
      ctx.addIssue(valueError(`Invalid timezone '${zone}': expected an IANA time zone name such as 'America/New_York'`));
  });

/**
 * The run options a cron's runs are created with (the 2026 document's CronCreate, ThreadCronCreate
 * and CronPatch), typed as the run bodies type them (runs/schema.ts), so a wrong one is FastAPI's
 * 422, never stored.
 */
const CronRunOptions = {
  stream_mode: optionalField(z.preprocess((v) => (typeof v === "string" ? [v] : v), z.array(z.enum(STREAM_MODES)))),
  stream_subgraphs: optionalField(z.boolean()),
  stream_resumable: optionalField(z.boolean()),
  durability: optionalField(z.enum(["sync", "async", "exit"])),
};

/**
 * The fields both cron requests share (CronCreate, ThreadCronCreate). Unknown fields are kept:
 * the real server stores the whole request as the cron's `payload` and creates each run from it.
 */
const CronFields = {
  schedule: z.string(),
  end_time: optionalField(dateTime()),
  assistant_id: z.string(),
  input: optionalField(z.union([z.array(JsonObjectSchema), JsonObjectSchema])),
  metadata: optionalField(JsonObjectSchema),
  config: optionalField(ConfigSchema),
  context: optionalField(JsonObjectSchema),
  enabled: optionalField(z.boolean()),
  timezone: timezone(),
  ...CronRunOptions,
  webhook: unsupported("the emulator makes no outbound calls"),
  interrupt_before: unsupported("the emulated graphs run without interrupts"),
  interrupt_after: unsupported("the emulated graphs run without interrupts"),
};

/** ThreadCronCreate (POST /threads/{thread_id}/runs/crons): runs on that thread, queued behind its other runs by default. */
export const ThreadCronCreate = z.looseObject({
  ...CronFields,
  multitask_strategy: optionalField(z.enum(["reject", "rollback", "interrupt", "enqueue"])),
});

/** CronCreate (POST /runs/crons): each run on a new thread, deleted after the run unless `on_run_completed` is "keep". */
export const CronCreate = z.looseObject({
  ...CronFields,
  on_run_completed: optionalField(z.enum(["delete", "keep"])),
});
export type CronCreate = z.output<typeof CronCreate> & { readonly multitask_strategy?: string };

/** What `select` may name: the 2026 document's fields, and `now`, which older clients still send. */
export const CRON_FIELDS = [
  "cron_id",
  "assistant_id",
  "thread_id",
  "on_run_completed",
  "end_time",
  "schedule",
  "timezone",
  "enabled",
  "created_at",
  "updated_at",
  "user_id",
  "payload",
  "next_run_date",
  "metadata",
  "now",
] as const;

/** CronCountRequest (POST /runs/crons/count); `assistant_id` may also be a graph id. */
const CronFilter = z.object({
  assistant_id: optionalField(z.string()),
  thread_id: optionalField(uuid()),
  /** Crons whose metadata contains these pairs (the 2026 document). */
  metadata: optionalField(JsonObjectSchema),
});
export const CronCount = optionalBody(CronFilter);
export type CronFilter = z.output<typeof CronFilter> & { readonly enabled?: boolean | undefined };

/** CronSearch (POST /runs/crons/search); `enabled` filters too, as the official client sends it. */
export const CronSearch = optionalBody(
  CronFilter.extend({
    enabled: optionalField(z.boolean()),
    ...bodyPaging({ maxLimit: 1000, defaultLimit: 10 }),
    sort_by: optionalField(z.enum(["cron_id", "assistant_id", "thread_id", "next_run_date", "end_time", "created_at", "updated_at"])),
    sort_order: optionalField(z.enum(["asc", "desc"])),
    select: optionalField(z.array(z.enum(CRON_FIELDS))),
  }),
);
export type CronSearch = z.output<typeof CronSearch>;

/**
 * CronPatch (PATCH /runs/crons/{cron_id}, the official clients' `crons.update`): each field given
 * replaces the cron's (`metadata` is merged key by key, as for threads and assistants); `end_time:
 * null` clears the end time, where an absent one leaves it; `input`, `config`, `context`,
 * `timezone` and the run options replace those of the payload its runs are created from. A new
 * `schedule` or `timezone` sets the next run date anew from now.
 */
export const CronUpdate = optionalBody(
  z.object({
    schedule: optionalField(z.string()),
    end_time: dateTime().nullable().optional(),
    timezone: timezone(),
    ...CronRunOptions,
    input: CronFields.input,
    metadata: optionalField(JsonObjectSchema),
    config: optionalField(ConfigSchema),
    context: optionalField(JsonObjectSchema),
    on_run_completed: optionalField(z.enum(["delete", "keep"])),
    enabled: optionalField(z.boolean()),
    webhook: CronFields.webhook,
    interrupt_before: CronFields.interrupt_before,
    interrupt_after: CronFields.interrupt_after,
  }),
);
export type CronUpdate = z.output<typeof CronUpdate>;

/** The path parameter of GET, PATCH and DELETE /runs/crons/{cron_id}. */
export const CronIdParam = z.object({ cron_id: uuid() });

/** The Cron resource, as the real server answers it (stateless crons have no thread). */
export interface Cron {
  readonly cron_id: string;
  readonly assistant_id: string;
  readonly thread_id: string | null;
  readonly on_run_completed: "delete" | "keep" | null;
  readonly end_time: string | null;
  readonly schedule: string;
  readonly created_at: string;
  readonly updated_at: string;
  readonly user_id: string | null;
  readonly payload: JsonObject;
  readonly next_run_date: string | null;
  readonly metadata: JsonObject;
  readonly enabled: boolean;
  /** The IANA zone the schedule is read in; null is UTC (the official clients type it). */
  readonly timezone: string | null;
}

/** What the routes ask the cron store to create. */
export interface CronRequest {
  /** The thread every run goes to, or null for a new thread per run. */
  readonly threadId: string | null;
  /** The assistant UUID the body names (a graph id already resolved), or undefined if it names none. */
  readonly assistantId: string | undefined;
  /** The request as sent, without null fields: the cron's payload. */
  readonly body: JsonObject;
  readonly schedule: string;
  readonly endTime: number | undefined;
  readonly enabled: boolean;
  readonly onRunCompleted: "delete" | "keep" | null;
  readonly metadata: JsonObject;
  readonly context: JsonObject | undefined;
}
