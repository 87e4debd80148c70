import { describe, expect, it } from "vitest";
import { isTimezone, parseSchedule } from "../../../emulators/agent-server/crons/schedule.ts";

const at = (iso: string) => Date.parse(iso);
/** The next `count` firing times after `iso`, as ISO strings, each found from the one before. */
function nextRuns(expression: string, iso: string, count = 3): string[] {
  const parsed = parseSchedule(expression);
  if (!parsed.ok) throw new Error(parsed.reason);
  const runs: string[] = [];
  let t = at(iso);
  for (let i = 0; i < count; i++) {
    const next = parsed.schedule.next(t);
    if (next === undefined) break;
    runs.push(new Date(next).toISOString());
    t = next;
  }
  return runs;
}

describe("parseSchedule: 5-field cron in UTC", () => {
  it("fires strictly after the given time, on whole minutes", () => {
    expect(nextRuns("* * * * *", "2026-01-01T00:00:00.000Z", 2)).toEqual(["2026-01-01T00:01:00.000Z", "2026-01-01T00:02:00.000Z"]);
    expect(nextRuns("* * * * *", "2026-01-01T00:00:30.500Z", 1)).toEqual(["2026-01-01T00:01:00.000Z"]);
    expect(nextRuns("* * * * *", "2026-01-01T00:00:59.999Z", 1)).toEqual(["2026-01-01T00:01:00.000Z"]);
    // A firing time itself is not "after" it.
    expect(nextRuns("0 12 * * *", "2026-01-01T12:00:00.000Z", 1)).toEqual(["2026-01-02T12:00:00.000Z"]);
    expect(nextRuns("0 12 * * *", "2026-01-01T11:59:59.999Z", 1)).toEqual(["2026-01-01T12:00:00.000Z"]);
  });

  it("reads steps, ranges and lists, and `a/n` as from a to the end of the field (croniter)", () => {
    expect(nextRuns("*/15 9-17 * * 1-5", "2026-11-27T16:50:00Z")).toEqual(["2026-11-27T17:00:00.000Z", "2026-11-27T17:15:00.000Z", "2026-11-27T17:30:00.000Z"]);
    // Friday 17:45 is the last of the week; Monday 09:00 is next.
    expect(nextRuns("*/15 9-17 * * 1-5", "2026-11-27T17:45:00Z", 1)).toEqual(["2026-11-30T09:00:00.000Z"]);
    expect(nextRuns("5,35 */6 * * *", "2026-01-01T00:10:00Z")).toEqual(["2026-01-01T00:35:00.000Z", "2026-01-01T06:05:00.000Z", "2026-01-01T06:35:00.000Z"]);
    expect(nextRuns("10-30/10 0 * * *", "2026-01-01T00:00:00Z")).toEqual(["2026-01-01T00:10:00.000Z", "2026-01-01T00:20:00.000Z", "2026-01-01T00:30:00.000Z"]);
    expect(nextRuns("50/5 0 * * *", "2026-01-01T00:00:00Z")).toEqual(["2026-01-01T00:50:00.000Z", "2026-01-01T00:55:00.000Z", "2026-01-02T00:50:00.000Z"]);
  });

  it("reads month and weekday names, and Sunday as 0 or 7", () => {
    expect(nextRuns("0 12 * jan-feb sun", "2026-01-01T00:00:00Z", 2)).toEqual(["2026-01-04T12:00:00.000Z", "2026-01-11T12:00:00.000Z"]);
    expect(nextRuns("0 12 * * 0", "2026-01-01T00:00:00Z", 1)).toEqual(["2026-01-04T12:00:00.000Z"]);
    expect(nextRuns("0 12 * * 7", "2026-01-01T00:00:00Z", 1)).toEqual(["2026-01-04T12:00:00.000Z"]);
  });

  it("fires on a day matching either the day of month or the weekday when both are restricted", () => {
    // 2026-03-01 is a Sunday; the 15th is a Sunday too; Mondays are the 2nd and 9th.
    expect(nextRuns("0 0 15 * mon", "2026-03-01T00:00:00Z")).toEqual(["2026-03-02T00:00:00.000Z", "2026-03-09T00:00:00.000Z", "2026-03-15T00:00:00.000Z"]);
    // A stepped day of month is restricted too (croniter: only a bare `*` is not): odd days or Mondays.
    expect(nextRuns("0 0 */2 * mon", "2026-03-01T00:00:00Z")).toEqual(["2026-03-02T00:00:00.000Z", "2026-03-03T00:00:00.000Z", "2026-03-05T00:00:00.000Z"]);
    // With one of them `*`, only the other counts.
    expect(nextRuns("0 0 15 * *", "2026-03-01T00:00:00Z", 1)).toEqual(["2026-03-15T00:00:00.000Z"]);
    expect(nextRuns("0 0 * * mon", "2026-03-01T00:00:00Z", 2)).toEqual(["2026-03-02T00:00:00.000Z", "2026-03-09T00:00:00.000Z"]);
  });

  it("reads the nicknames, and crosses month and year ends", () => {
    expect(nextRuns("@daily", "2026-12-31T12:00:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(nextRuns("@midnight", "2026-12-31T12:00:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(nextRuns("@hourly", "2026-12-31T23:30:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(nextRuns("@weekly", "2026-12-31T12:00:00Z", 1)).toEqual(["2027-01-03T00:00:00.000Z"]);
    expect(nextRuns("@monthly", "2026-12-15T00:00:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(nextRuns("@yearly", "2026-06-01T00:00:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(nextRuns("@annually", "2026-06-01T00:00:00Z", 1)).toEqual(["2027-01-01T00:00:00.000Z"]);
    expect(nextRuns("0 0 29 2 *", "2026-01-01T00:00:00Z", 1)).toEqual(["2028-02-29T00:00:00.000Z"]);
  });

  it("ignores surrounding whitespace", () => {
    expect(nextRuns("  0 12  * * *\n", "2026-01-01T00:00:00Z", 1)).toEqual(["2026-01-01T12:00:00.000Z"]);
  });

  it("says when a schedule never fires", () => {
    for (const expression of ["0 0 30 2 *", "0 0 31 4 *"]) {
      const parsed = parseSchedule(expression);
      expect(parsed.ok, expression).toBe(true);
      if (parsed.ok) expect(parsed.schedule.next(at("2026-01-01T00:00:00Z")), expression).toBeUndefined();
    }
  });
});

describe("parseSchedule: 6-field cron, seconds last (croniter)", () => {
  it("reads the sixth field as seconds", () => {
    expect(nextRuns("* * * * * 30", "2026-01-01T00:00:00Z")).toEqual(["2026-01-01T00:00:30.000Z", "2026-01-01T00:01:30.000Z", "2026-01-01T00:02:30.000Z"]);
    expect(nextRuns("* * * * * */20", "2026-01-01T00:00:00Z")).toEqual(["2026-01-01T00:00:20.000Z", "2026-01-01T00:00:40.000Z", "2026-01-01T00:01:00.000Z"]);
    expect(nextRuns("30 12 * * mon 15", "2026-03-01T00:00:00Z", 2)).toEqual(["2026-03-02T12:30:15.000Z", "2026-03-09T12:30:15.000Z"]);
  });

  it("fires strictly after the given time, to the second", () => {
    expect(nextRuns("* * * * * *", "2026-01-01T00:00:59.500Z", 2)).toEqual(["2026-01-01T00:01:00.000Z", "2026-01-01T00:01:01.000Z"]);
    expect(nextRuns("* * * * * 30", "2026-01-01T00:00:30.000Z", 1)).toEqual(["2026-01-01T00:01:30.000Z"]);
  });

  it("does not read the first field as seconds", () => {
    // Minute 45 of each hour, at second 0; as croner's seconds-first order it would be second 45.
    expect(nextRuns("45 * * * * 0", "2026-01-01T00:00:00Z", 2)).toEqual(["2026-01-01T00:45:00.000Z", "2026-01-01T01:45:00.000Z"]);
    const seconds = parseSchedule("* * * * * 60");
    expect(seconds.ok).toBe(false);
  });
});

describe("parseSchedule: refusals", () => {
  it("refuses an expression that is not a schedule, with a reason", () => {
    for (const [expression, reason] of [
      ["", /five, six, or seven space separated parts/],
      ["every day", /five, six, or seven space separated parts/],
      ["* * * *", /five, six, or seven space separated parts/],
      ["* * * * * * *", /exactly 5 or 6 parts/],
      ["60 * * * *", /Invalid value for minute: 60/],
      ["* 24 * * *", /Invalid value for hour: 24/],
      ["* * * 13 *", /Invalid value for month/],
      ["* 5-2 * * *", /From value is larger than to value: '5-2'/],
      ["*/0 * * * *", /illegal stepping: 0/],
      ["* * * foo *", /illegal characters/],
      ["1,,2 * * * *", /empty/],
      ["@reboot", /@reboot/],
    ] as const) {
      const parsed = parseSchedule(expression);
      expect(parsed.ok, expression).toBe(false);
      if (!parsed.ok) {
        expect(parsed.reason, expression).toMatch(reason);
        expect(parsed.reason, expression).not.toMatch(/^CronPattern:/);
      }
    }
  });
});

describe("parseSchedule: in a cron's IANA time zone", () => {
  const next = (expression: string, zone: string | null, iso: string) => {
    const parsed = parseSchedule(expression, zone);
    if (!parsed.ok) throw new Error(parsed.reason);
    return new Date(parsed.schedule.next(at(iso))!).toISOString();
  };

  it("reads the fields in that zone, daylight saving time included; null and UTC are UTC", () => {
    // 09:00 in New York: 14:00 UTC in winter (EST), 13:00 UTC in summer (EDT).
    expect(next("0 9 * * *", "America/New_York", "2026-01-10T00:00:00.000Z")).toBe("2026-01-10T14:00:00.000Z");
    expect(next("0 9 * * *", "America/New_York", "2026-07-10T00:00:00.000Z")).toBe("2026-07-10T13:00:00.000Z");
    expect(next("0 9 * * *", "Asia/Kolkata", "2026-01-10T00:00:00.000Z")).toBe("2026-01-10T03:30:00.000Z");
    expect(next("0 9 * * *", null, "2026-01-10T00:00:00.000Z")).toBe("2026-01-10T09:00:00.000Z");
    expect(next("0 9 * * *", "UTC", "2026-01-10T00:00:00.000Z")).toBe("2026-01-10T09:00:00.000Z");
  });

  it("isTimezone knows IANA names and nothing else", () => {
    expect(isTimezone("America/New_York")).toBe(true);
    expect(isTimezone("UTC")).toBe(true);
    expect(isTimezone("Mars/Olympus_Mons")).toBe(false);
    expect(isTimezone("")).toBe(false);
  });
});
