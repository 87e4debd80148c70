/** Where an isolate's time comes from (envoy's TimeSource): tests drive it, the bench skews it. */
export interface Clock {
  now(): number;
}

/** The runtime's clock, read at each call. */
export const systemClock: Clock = { now: () => Date.now() };
