import { RpcTarget } from "cloudflare:workers";
import type { AssistantStore } from "../assistants/store.ts";
import { checkContext } from "../graphs/context.ts";
import { findGraph } from "../graphs/registry.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { invalid, ok, refuse, type Result } from "../../shared/result.ts";
import { contains, parseJson } from "../storage.ts";
import type { EmulatorClock } from "../system/clock.ts";
import { notFound as threadNotFound, type ThreadStore } from "../threads/store.ts";
import type { DueCron } from "./firing.ts";
import type { ScheduleParser } from "./schedule.ts";
import type { Cron, CronFilter, CronRequest, CronSearch, CronUpdate } from "./schema.ts";

type Row = {
  cron_id: string;
  assistant_id: string;
  thread_id: string | null;
  on_run_completed: string | null;
  end_time: number | null;
  schedule: string;
  created_at: number;
  updated_at: number;
  payload: string;
  next_run_date: number | null;
  metadata: string;
  enabled: number;
};

/** A page of crons and how many matched in all (for the pagination headers). */
export interface CronPage {
  readonly items: readonly Partial<Cron & { now: string }>[];
  readonly total: number;
}

/** What the cron store needs from the state object besides its storage. */
export interface CronStoreDeps {
  readonly threads: ThreadStore;
  readonly assistants: AssistantStore;
  readonly clock: EmulatorClock;
  readonly parse: ScheduleParser;
  /** Sets the object's alarm anew after `nextDue` changed (alarms.ts). */
  readonly rearm: () => void;
}

/**
 * Crons: schedules that create runs. Each keeps its `next_run_date`; the state object's alarm is
 * set no later than the earliest one (cron-alarm.ts), and when it rings `claimDue` hands out the
 * crons due and moves each to its next time after now (missed times are not made up, as on the
 * real server). A cron whose
 * thread or assistant was deleted is deleted with it, as the real server's foreign keys cascade.
 */
export class CronStore extends RpcTarget {
  readonly #storage: DurableObjectStorage;
  readonly #deps: CronStoreDeps;

  constructor(storage: DurableObjectStorage, deps: CronStoreDeps) {
    super();
    this.#storage = storage;
    this.#deps = deps;
  }

  /** POST /threads/{thread_id}/runs/crons and POST /runs/crons. */
  create(request: CronRequest): Result<Cron> {
    const { threads, assistants, clock, parse } = this.#deps;
    const now = clock.now();
    const created = this.#storage.transactionSync((): Result<Cron> => {
      this.#cascade();
      if (request.threadId !== null && !threads.find(request.threadId)) return threadNotFound(request.threadId);
      const assistant = request.assistantId ? assistants.find(request.assistantId) : undefined;
      if (!assistant) {
        return refuse(
          404,
          `Assistant '${String(request.body.assistant_id)}' not found: send the UUID of an assistant, or a graph id for its default assistant.`,
        );
      }
      const errors = checkContext(findGraph(assistant.graph_id)!, { ...assistant.context, ...request.context });
      if (errors.length) return invalid(errors);
      const parsed = parse(request.schedule, zoneOf(request.body));
      if (!parsed.ok)
        return invalid([
          { type: "value_error", loc: ["body", "schedule"], msg: `Value error, Invalid cron schedule: ${parsed.reason}`, input: request.schedule },
        ]);
      const next = parsed.schedule.next(now);
      if (next === undefined)
        return invalid([
          { type: "value_error", loc: ["body", "schedule"], msg: "Value error, Invalid cron schedule: it never fires", input: request.schedule },
        ]);

      const id = crypto.randomUUID();
      this.#sql.exec(
        `INSERT INTO crons (cron_id, assistant_id, thread_id, on_run_completed, end_time, schedule, created_at, updated_at, payload, next_run_date, metadata, enabled)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        id,
        assistant.assistant_id,
        request.threadId,
        request.onRunCompleted,
        request.endTime ?? null,
        request.schedule,
        now,
        now,
        JSON.stringify({ ...request.body, assistant_id: assistant.assistant_id }),
        next,
        JSON.stringify(request.metadata),
        request.enabled ? 1 : 0,
      );
      return ok(this.#find(id)!);
    });
    if (created.ok) this.#rearm();
    return created;
  }

  /** POST /runs/crons/search: filtered, sorted (default: newest first), one page. */
  search(query: CronSearch): CronPage {
    this.#cascade();
    const matches = this.#matching(query);
    const by = query.sort_by ?? "created_at";
    const direction = (query.sort_order ?? "desc") === "desc" ? -1 : 1;
    matches.sort((a, b) => direction * (compare(a.row[by], b.row[by]) || a.seq - b.seq));
    // `now` is a column only a selection asks for: the time the search was answered.
    const now = query.select?.includes("now") ? { now: this.#deps.clock.stamp() } : {};
    const page = matches.slice(query.offset, query.offset + query.limit).map(({ row }) => pick({ ...this.#toCron(row), ...now }, query.select));
    return { items: page, total: matches.length };
  }

  /** GET /runs/crons/{cron_id}. */
  get(id: string): Result<Cron> {
    this.#cascade();
    const cron = this.#find(id);
    return cron ? ok(cron) : refuse(404, `Cron ${id} not found.`);
  }

  /** POST /runs/crons/count. */
  count(filter: CronFilter): number {
    this.#cascade();
    return this.#matching(filter).length;
  }

  /**
   * PATCH /runs/crons/{cron_id}: the fields given replace the cron's (metadata merged); a new
   * schedule (or enabling it again) moves `next_run_date` to its next time after now.
   */
  update(id: string, change: CronUpdate): Result<Cron> {
    const { assistants, clock, parse } = this.#deps;
    const now = clock.now();
    const updated = this.#storage.transactionSync((): Result<Cron> => {
      this.#cascade();
      const row = this.#sql.exec<Row>("SELECT * FROM crons WHERE cron_id = ?", id).toArray()[0];
      if (!row) return refuse(404, `Cron ${id} not found.`);
      if (change.on_run_completed !== undefined && row.thread_id !== null) {
        return invalid([
          {
            type: "value_error",
            loc: ["body", "on_run_completed"],
            msg: "Value error, on_run_completed applies to stateless crons only: this cron runs on a thread",
            input: change.on_run_completed,
          },
        ]);
      }
      const payload = parseJson<JsonObject>(row.payload);
      if (change.context !== undefined) {
        const assistant = assistants.find(row.assistant_id)!;
        const errors = checkContext(findGraph(assistant.graph_id)!, { ...assistant.context, ...change.context });
        if (errors.length) return invalid(errors);
      }
      let next = row.next_run_date;
      const schedule = change.schedule ?? row.schedule;
      if (change.timezone !== undefined) payload.timezone = change.timezone;
      if (change.schedule !== undefined || change.timezone !== undefined || (change.enabled === true && row.enabled === 0)) {
        const parsed = parse(schedule, zoneOf(payload));
        if (!parsed.ok)
          return invalid([{ type: "value_error", loc: ["body", "schedule"], msg: `Value error, Invalid cron schedule: ${parsed.reason}`, input: schedule }]);
        const at = parsed.schedule.next(now);
        if (at === undefined)
          return invalid([{ type: "value_error", loc: ["body", "schedule"], msg: "Value error, Invalid cron schedule: it never fires", input: schedule }]);
        next = at;
      }
      for (const field of ["input", "config", "context", "stream_mode", "stream_subgraphs", "stream_resumable", "durability"] as const) {
        if (change[field] !== undefined) payload[field] = change[field] as JsonObject[keyof JsonObject];
      }
      if (change.schedule !== undefined) payload.schedule = change.schedule;
      this.#sql.exec(
        "UPDATE crons SET schedule = ?, end_time = ?, enabled = ?, on_run_completed = ?, metadata = ?, payload = ?, next_run_date = ?, updated_at = ? WHERE cron_id = ?",
        schedule,
        // null clears the end time; absent leaves it.
        change.end_time === undefined ? row.end_time : change.end_time,
        change.enabled === undefined ? row.enabled : change.enabled ? 1 : 0,
        change.on_run_completed ?? row.on_run_completed,
        JSON.stringify({ ...parseJson<JsonObject>(row.metadata), ...change.metadata }),
        JSON.stringify(payload),
        next,
        now,
        id,
      );
      return ok(this.#find(id)!);
    });
    if (updated.ok) this.#rearm();
    return updated;
  }

  /** DELETE /runs/crons/{cron_id}. */
  delete(id: string): Result<null> {
    this.#cascade();
    const deleted = this.#sql.exec("DELETE FROM crons WHERE cron_id = ?", id).rowsWritten > 0;
    if (!deleted) return refuse(404, `Cron ${id} not found.`);
    this.#rearm();
    return ok(null);
  }

  /**
   * The crons due now (enabled, not past their `end_time`), each moved on to its next time after
   * now in the same step, so an alarm that rings twice cannot fire a cron twice.
   */
  claimDue(): DueCron[] {
    const now = this.#deps.clock.now();
    const due = this.#storage.transactionSync(() => {
      this.#cascade();
      const rows = this.#sql
        .exec<Row>(
          "SELECT * FROM crons WHERE enabled = 1 AND next_run_date <= ? AND (end_time IS NULL OR end_time >= ?) ORDER BY next_run_date, rowid",
          now,
          now,
        )
        .toArray();
      for (const row of rows) {
        const parsed = this.#deps.parse(row.schedule, zoneOf(parseJson<JsonObject>(row.payload)));
        const next = parsed.ok ? (parsed.schedule.next(now) ?? null) : null;
        this.#sql.exec("UPDATE crons SET next_run_date = ? WHERE cron_id = ?", next, row.cron_id);
      }
      return rows.map((row): DueCron => ({
        cron_id: row.cron_id,
        thread_id: row.thread_id,
        on_run_completed: row.on_run_completed as DueCron["on_run_completed"],
        payload: parseJson<JsonObject>(row.payload),
      }));
    });
    this.#rearm();
    return due;
  }

  /** The earliest time a cron is due (enabled, not past its end), for the state object's alarm. */
  nextDue(): number | undefined {
    const row = this.#sql
      .exec<{ at: number | null }>(
        "SELECT MIN(next_run_date) AS at FROM crons WHERE enabled = 1 AND next_run_date IS NOT NULL AND (end_time IS NULL OR end_time >= next_run_date)",
      )
      .one();
    return row.at ?? undefined;
  }

  #rearm(): void {
    this.#deps.rearm();
  }

  // The real server's cron table refers to threads and assistants with ON DELETE CASCADE.
  #cascade(): void {
    this.#sql.exec("DELETE FROM crons WHERE thread_id IS NOT NULL AND thread_id NOT IN (SELECT thread_id FROM threads)");
    this.#sql.exec("DELETE FROM crons WHERE assistant_id NOT IN (SELECT assistant_id FROM assistants)");
  }

  #matching(filter: CronFilter): { row: Row; seq: number }[] {
    return this.#sql
      .exec<Row & { seq: number }>("SELECT *, rowid AS seq FROM crons")
      .toArray()
      .filter((row) => {
        if (filter.assistant_id !== undefined && row.assistant_id !== filter.assistant_id) return false;
        if (filter.thread_id !== undefined && row.thread_id !== filter.thread_id) return false;
        if (filter.metadata !== undefined && !contains(parseJson(row.metadata), filter.metadata)) return false;
        return filter.enabled === undefined || row.enabled === (filter.enabled ? 1 : 0);
      })
      .map((row) => ({ row, seq: row.seq }));
  }

  #find(id: string): Cron | undefined {
    const row = this.#sql.exec<Row>("SELECT * FROM crons WHERE cron_id = ?", id).toArray()[0];
    return row ? this.#toCron(row) : undefined;
  }

  #toCron(row: Row): Cron {
    const stamp = (ms: number | null) => (ms === null ? null : this.#deps.clock.stamp(ms));
    const payload = parseJson<JsonObject>(row.payload);
    return {
      cron_id: row.cron_id,
      assistant_id: row.assistant_id,
      thread_id: row.thread_id,
      on_run_completed: row.on_run_completed as Cron["on_run_completed"],
      end_time: stamp(row.end_time),
      schedule: row.schedule,
      created_at: this.#deps.clock.stamp(row.created_at),
      updated_at: this.#deps.clock.stamp(row.updated_at),
      user_id: null,
      payload,
      next_run_date: stamp(row.next_run_date),
      metadata: parseJson(row.metadata),
      enabled: row.enabled === 1,
      timezone: zoneOf(payload),
    };
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }
}

function pick<T extends object>(value: T, select: readonly string[] | undefined): Partial<T> {
  if (!select?.length) return value;
  return Object.fromEntries(Object.entries(value).filter(([key]) => select.includes(key))) as Partial<T>;
}

// Sorts numbers as numbers and text as text; nulls (no thread, no end) first.
function compare(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1;
  if (b === null || b === undefined) return 1;
  return a < b ? -1 : 1;
}

/** The cron's time zone, kept in its payload as sent (null: UTC). */
function zoneOf(payload: JsonObject): string | null {
  return typeof payload.timezone === "string" ? payload.timezone : null;
}
