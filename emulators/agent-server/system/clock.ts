import { timestamp } from "../clock.ts";

/**
 * The state object's time for what is due at a time: store items that expire, crons that fire.
 * It is the machine's time, plus an offset that only tests move (`advance`), so a test can let an
 * hour pass without waiting for it. Timestamps written from it look like every other timestamp of
 * the emulator (`2025-01-01T12:00:00.000+00:00`).
 */
export class EmulatorClock {
  #offsetMs = 0;

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

  /** Moves this clock forward (tests only: nothing in the emulator calls it). */
  advance(ms: number): void {
    this.#offsetMs += ms;
  }
}
