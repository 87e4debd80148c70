import { timestamp } from "../clock.ts";

/**
 * The state object's time for what is due at a time: store items that expire, crons that fire,
 * the pause before a run's next step. It is the machine's time, plus an offset that only tests
 * move (`advance`), so a test can let an hour pass without waiting for it. Timestamps written from
 * it look like every other timestamp of the emulator (`2025-01-01T12:00:00.000+00:00`).
 */
export class EmulatorClock {
  #offsetMs = 0;
  /** Who sleeps until when (on this clock), so that moving the clock wakes them. */
  readonly #sleepers = new Set<{ readonly until: number; readonly wake: () => void }>();

  /** Milliseconds since the epoch, on this clock. */
  now(): number {
    return Date.now() + this.#offsetMs;
  }

  /** `ms` on this clock as a timestamp. */
  stamp(ms: number = this.now()): string {
    return timestamp(new Date(ms));
  }

  /** The machine time at which this clock shows `ms` (when to set an alarm for it). */
  machineTime(ms: number): number {
    return ms - this.#offsetMs;
  }

  /**
   * Resolves once this clock has moved `ms` on: when the machine's time has (a timer, for real
   * clients), or when a test moves it past (`advance`), whichever comes first; at once when
   * `signal` aborts (a cancelled run does not sit out its pause).
   */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    if (ms <= 0 || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        until: this.now() + ms,
        wake: () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", sleeper.wake);
          this.#sleepers.delete(sleeper);
          resolve();
        },
      };
      const timer = setTimeout(sleeper.wake, ms);
      signal?.addEventListener("abort", sleeper.wake, { once: true });
      this.#sleepers.add(sleeper);
    });
  }

  /** Moves this clock forward, waking whoever sleeps until then (tests only: nothing in the emulator calls it). */
  advance(ms: number): void {
    this.#offsetMs += ms;
    const now = this.now();
    for (const sleeper of this.#sleepers) if (sleeper.until <= now) sleeper.wake();
  }
}
