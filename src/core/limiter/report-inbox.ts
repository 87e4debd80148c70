import type { FallbackReport } from "./fallback.ts";
import type { SlidingWindow } from "./sliding-window.ts";
import type { Limit, Verdict } from "./types.ts";

/** Recent calls a counter remembers what it admitted for, within one interval. */
const MAX_CALLS_KEPT = 64;

/**
 * What a counter hears of admissions made elsewhere: isolates' local fallback windows report what
 * they admitted while the object did not answer (fallback.ts). Each report is counted once (it
 * may come twice), and a report naming a call this counter decided takes the place of that call's
 * admissions: the call's answer was lost or came too late, so its requests were decided again by
 * the fallback, and each would otherwise count twice.
 */
export class ReportInbox {
  /** Reports already counted, until they can no longer matter. */
  #seen: Map<string, number> | undefined;
  /** What recent calls admitted, by call id, oldest first. */
  readonly #calls = new Map<string, { at: number; admitted: number }>();
  /** When the last new report came: other isolates' reports of the same outage may still be on their way. */
  #reportedAt = Number.NEGATIVE_INFINITY;

  /** Remembers what call `call` admitted at `now`, for a report that may name it. */
  noteCall(call: string, verdicts: readonly Verdict[], now: number, limit: Limit): void {
    const admitted = verdicts.reduce((n, v) => n + (v.allowed ? 1 : 0), 0);
    if (admitted > 0) this.#calls.set(call, { at: now, admitted });
    for (const [id, { at }] of this.#calls) {
      if (this.#calls.size <= MAX_CALLS_KEPT && at > now - limit.intervalMs) break;
      this.#calls.delete(id);
    }
  }

  /**
   * The admission times of `reports` not counted yet, at the object's clock (their ages are
   * durations), after releasing from `window` the admissions of the calls they name. `released`
   * says whether any were (storage still holds them, as reservations, until a snapshot).
   */
  take(reports: readonly FallbackReport[], limit: Limit, now: number, window: SlidingWindow): { times: number[]; released: boolean } {
    const times: number[] = [];
    let released = false;
    if (reports.length === 0) return { times, released };
    const seen = (this.#seen ??= new Map());
    for (const [id, until] of seen) if (until <= now) seen.delete(id);
    for (const { id, agesMs, call } of reports) {
      if (seen.has(id) || !Array.isArray(agesMs)) continue;
      seen.set(id, now + limit.intervalMs);
      this.#reportedAt = now;
      const decided = typeof call === "string" ? this.#calls.get(call) : undefined;
      if (decided) {
        this.#calls.delete(call!);
        if (window.release(decided.at, decided.admitted) > 0) released = true;
      }
      // An age is measured up to when the call was sent, before `now`: the time it gives is no
      // earlier than the admission was made, so it leaves the window no earlier.
      for (const age of agesMs) if (Number.isFinite(age) && age >= 0 && age < limit.intervalMs) times.push(now - age);
    }
    return { times, released };
  }

  /** True within an interval of the last new report: a refusal then must not be cached (its retry time may still move). */
  recent(now: number, limit: Limit): boolean {
    return now - this.#reportedAt < limit.intervalMs;
  }
}
