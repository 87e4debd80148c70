/**
 * Pure rate-limiting core: an exact sliding window plus the persistence
 * policy that lets a Durable Object survive restarts without over-admitting.
 * No platform imports, no clock: callers pass `now` in.
 */
export type { DecidedBy, Limit, Verdict, WindowAnswer } from "./types.ts";
export { verdictOf } from "./types.ts";
export { Counter, MemoryCounterStore, SETTLE_MS } from "./counter.ts";
export type { CounterAnswer, CounterStore, DecideExtras, Inspection, StoredCounter, Upkeep } from "./counter.ts";
export { LeaseBook, LEASE_MIN_COUNT, MAX_LEASE_MS } from "./lease.ts";
export { GIVE_BACK_GRACE_MS } from "./lease-desk.ts";
export type { LeaseCall, LeaseGrant, LeaseRequest, LeaseReturn } from "./lease.ts";
export { LocalFallback } from "./fallback.ts";
export type { FallbackReport, Observed } from "./fallback.ts";
export { DenyCache } from "./deny-cache.ts";
export { setBounded } from "./bounded-map.ts";
export { SlidingWindow } from "./sliding-window.ts";
export { ReservationLedger, restoreAdmissions } from "./ledger.ts";
export type { LedgerOptions, Reservation, Snapshot } from "./ledger.ts";
export { FixedWindow } from "./fixed-window.ts";

/** Which counter a counter object runs. Only "sliding-window" is ever deployed (see fixed-window.ts). */
export type Algorithm = "sliding-window" | "fixed-window";
export { CallTimedOut, Coalescer } from "./coalescer.ts";
export type { CoalescerOptions } from "./coalescer.ts";
export { counterAddress, OBJECTS_PER_RULE } from "./counter-name.ts";
export type { CounterAddress } from "./counter-name.ts";
export { GiveBackRoster } from "./give-back-roster.ts";
export { SlotBook } from "./slots.ts";
export type { SlotAnswer, SlotGranted, SlotRefused, SlotRenewal, SlotTake } from "./slots.ts";
