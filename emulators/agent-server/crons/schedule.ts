import { Cron } from "croner";

/**
 * A cron schedule, read once: when it next fires after a time. Everything else in crons/ knows
 * schedules only through this, so the library behind `parseSchedule` can be swapped without
 * touching the firing logic.
 */
export interface Schedule {
  /** The first time strictly after `afterMs` at which the schedule fires, or undefined if it never does. */
  next(afterMs: number): number | undefined;
}

/** A schedule, or why the expression is not one. */
export type ParsedSchedule = { readonly ok: true; readonly schedule: Schedule } | { readonly ok: false; readonly reason: string };

export type ScheduleParser = (expression: string, timezone?: string | null) => ParsedSchedule;

/**
 * A cron schedule read as croniter reads it on the real server, through croner, in UTC or in the
 * cron's IANA `timezone` (null: UTC, as the API says; `isTimezone` checks a name first): 5 fields
 * (`minute hour day-of-month month day-of-week`), or 6 with seconds as the last field; numbers,
 * `*`, `?`, ranges, steps (also `a/n`, from a to the field's end), lists, month and weekday names,
 * Sunday as 0 or 7, the nicknames (`@daily`, ...), and the rule that when both the day of month
 * and the weekday are restricted, a day matching either fires.
 */
export function parseSchedule(expression: string, timezone?: string | null): ParsedSchedule {
  const text = expression.trim();
  const fields = text.split(/\s+/);
  // croniter puts seconds last in a 6-field schedule; croner puts them first.
  const pattern = fields.length === 6 ? [fields[5], ...fields.slice(0, 5)].join(" ") : text;
  let cron: Cron;
  try {
    cron = new Cron(pattern, {
      paused: true,
      // UTC without croner's Intl time-zone lookups; a named zone through them.
      ...(timezone === undefined || timezone === null || UTC_NAMES.has(timezone) ? { utcOffset: 0 } : { timezone }),
      mode: "5-or-6-parts",
      // croniter reads `a/n` as `a-max/n`.
      sloppyRanges: true,
      // Day of month or weekday when both are restricted (croner's default, spelled out).
      domAndDow: false,
    });
  } catch (error) {
    return { ok: false, reason: (error instanceof Error ? error.message : String(error)).replace(/^CronPattern: /, "") };
  }
  return { ok: true, schedule: { next: (afterMs) => cron.nextRun(new Date(afterMs))?.getTime() } };
}

const UTC_NAMES = new Set(["UTC", "Etc/UTC"]);

/** Whether `name` is an IANA time zone the runtime knows (`America/New_York`, `UTC`). */
export function isTimezone(name: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return true;
  } catch {
    return false;
  }
}
