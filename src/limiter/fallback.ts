import { setBounded } from "./bounded-map.ts";
import { SlidingWindow } from "./sliding-window.ts";
import type { Decision, Limit, Verdict } from "./types.ts";

/**
 * What an isolate does for a counter whose object fails or is overloaded: decide locally, with a
 * sliding window of the same limit, instead of admitting uncounted traffic (README, "Counting").
 *
 * The local window starts from what the object last said: the `count - remaining` admissions it
 * reported, placed at the moment it reported them (the latest they can have happened, so they
 * expire no earlier than the real ones). Every local admission is remembered and handed to the
 * object on the next call that succeeds (`takeUnreported`), so the object counts it too. An isolate
 * therefore admits at most `count` per window for a counter while its object is down, whatever
 * the burst; across isolates the bound is `count` per isolate.
 */
export class LocalFallback {
  readonly #seen = new Map<string, { at: number; used: number }>();
  readonly #windows = new Map<string, SlidingWindow>();
  readonly #unreported = new Map<string, number[]>();
  readonly #maxCounters: number;

  constructor(maxCounters = 10_000) {
    this.#maxCounters = maxCounters;
  }

  /** Notes what the object answered at `now` (the seed of a later local window). */
  observe(key: string, verdict: Verdict, now: number): void {
    setBounded(this.#seen, key, { at: now, used: verdict.limit - verdict.remaining }, this.#maxCounters);
    // The object answers again: it is the authority once it has been told of local admissions.
    if (!this.#unreported.has(key)) this.#windows.delete(key);
  }

  /** Decides one request locally, recording it when admitted. */
  decide(key: string, limit: Limit, now: number): Decision {
    let window = this.#windows.get(key);
    if (!window) {
      window = new SlidingWindow(limit);
      const seen = this.#seen.get(key);
      if (seen && seen.at > now - limit.intervalMs) window.seed(new Array<number>(Math.min(seen.used, limit.count)).fill(seen.at));
      setBounded(this.#windows, key, window, this.#maxCounters);
    } else {
      window.setLimit(limit);
    }
    const decision = window.hit(now);
    if (decision.allowed) {
      const times = this.#unreported.get(key) ?? [];
      times.push(now);
      // Only admissions still inside a window can matter to the object.
      while (times.length > 0 && times[0]! <= now - limit.intervalMs) times.shift();
      setBounded(this.#unreported, key, times, this.#maxCounters);
    }
    return decision;
  }

  /** Local admissions the object has not been told of; handed out once. */
  takeUnreported(key: string): number[] {
    const times = this.#unreported.get(key) ?? [];
    this.#unreported.delete(key);
    return times;
  }

  /** Gives back admissions a failed call could not deliver, to go with the next one. */
  restoreUnreported(key: string, times: readonly number[]): void {
    if (times.length === 0) return;
    const merged = [...times, ...(this.#unreported.get(key) ?? [])].sort((a, b) => a - b);
    setBounded(this.#unreported, key, merged, this.#maxCounters);
  }

  /** True while `key` has a local window (its object failed and has not been told since). */
  isActive(key: string): boolean {
    return this.#windows.has(key);
  }
}
