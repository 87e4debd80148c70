/** Where an isolate's time comes from (envoy's TimeSource): tests drive it, the bench skews it. */
export interface Clock {
  now(): number;
  /**
   * Resolves once `ms` have passed on this clock: a request waiting for lent units to come back
   * ("request"), work after the response, a lease given back at its end ("background"), or a
   * request held open renewing its slot's lease while it lasts ("renewal"). The runtime's timers
   * when not given; a test's driven clock fires them as it moves.
   */
  sleep?(ms: number, purpose: SleepPurpose): Promise<void>;
}

export type SleepPurpose = "request" | "background" | "renewal";

/** The runtime's clock, read at each call. */
export const systemClock: Clock = { now: () => Date.now() };

/** Waits `ms` on `clock`: its own timers if it has them, the runtime's otherwise. */
export function sleepOn(clock: Clock, ms: number, purpose: SleepPurpose): Promise<void> {
  if (clock.sleep) return clock.sleep(ms, purpose);
  return new Promise((wake) => setTimeout(wake, Math.max(0, ms)));
}
