import type { PublishedLimit } from "../rules/schema.ts";
import type { IdentityOverride, Override, RegionLimits, SubjectKind } from "./types.ts";

/*
 * What an override may set (docs/overrides.md, "Bounds"). The figures, and why:
 * - count at most 100,000: ten times the published tables' largest (10,000 per 60 s, rows 16 and
 *   17). A window keeps the time of every admission in it (src/core/limiter/sliding-window.ts), and a
 *   counter's idle snapshot stores them all in one storage value, about 9 bytes each: 100,000 take
 *   0.9 MB of the 2 MB a Durable Object's key and value may hold together, leaving room for a
 *   window that holds more than its count after a limit was lowered.
 * - interval at most 86,400 s (a day): 24 times the tables' longest (3,600 s, rows 14 and 15). A
 *   counter's storage and alarm live one interval past its last admission, in 64 objects per rule
 *   shared by every identity: a longer interval keeps every caller ever seen in storage. A limit
 *   meant to last longer than a day is a block.
 * - an exemption lasts at most 30 days from its creation: it stops all counting for a caller, so
 *   a forgotten one must end on its own; a month covers a trial or a migration, and renewing it is
 *   a review. Blocks, limits and rule overrides may be permanent (a forgotten block fails closed).
 * - any expiry at most 366 days ahead.
 */

/** Largest `count` an override may set. */
export const MAX_COUNT = 100_000;
/** Longest `interval` (seconds) an override may set. */
export const MAX_INTERVAL_S = 86_400;
/** Longest an exemption may last, counted from its creation (seconds). */
export const MAX_EXEMPTION_S = 30 * 86_400;
/** Furthest ahead any expiry may lie (seconds). */
export const MAX_LIFETIME_S = 366 * 86_400;

/** Subjects a client names itself (a header): they may only restrict, never admit more. */
export const FORGEABLE: ReadonlySet<SubjectKind> = new Set(["user-id"]);

/** `limit` admits no more than `base` in any stretch of time: no higher count, no shorter interval. */
export function noLaxer(limit: PublishedLimit, base: PublishedLimit): boolean {
  return limit.count <= base.count && limit.interval >= base.interval;
}

/** `limit` brought within the bounds: count lowered to MAX_COUNT, interval to MAX_INTERVAL_S. */
function clampLimit(limit: PublishedLimit): PublishedLimit {
  return { count: Math.min(Math.max(1, Math.floor(limit.count)), MAX_COUNT), interval: Math.min(Math.max(1, Math.floor(limit.interval)), MAX_INTERVAL_S) };
}

function clampLimits(limits: RegionLimits): RegionLimits {
  return Object.fromEntries(Object.entries(limits).map(([region, limit]) => [region, limit && clampLimit(limit)]));
}

/** The latest an exemption made at `createdAt` may end. */
export const exemptionEnd = (createdAt: number) => createdAt + MAX_EXEMPTION_S * 1000;

/**
 * An override made before these bounds, as the bounds allow it, or undefined when nothing can
 * make it allowed (an exemption of a forgeable subject: anyone could send that header). Limits
 * are clamped (a count above the bound to the bound: still the laxest allowed; an interval above
 * it to a day: still the strictest allowed), and an exemption without an expiry, or one further
 * than 30 days after its creation, ends 30 days after its creation (so one made long ago ends at
 * once). Returns the override itself when it is within the bounds.
 */
export function withinBounds(o: Override): Override | undefined {
  if (o.kind === "identity" && o.action === "exempt" && FORGEABLE.has(o.subject.kind)) return undefined;
  let changed = false;
  let next: Override = o;
  if (o.limits && Object.values(o.limits).some((l) => l && (l.count > MAX_COUNT || l.interval > MAX_INTERVAL_S))) {
    next = { ...next, limits: clampLimits(o.limits) } as Override;
    changed = true;
  }
  if (o.kind === "identity" && o.action === "exempt" && (o.expiresAt === undefined || o.expiresAt > exemptionEnd(o.createdAt))) {
    next = { ...(next as IdentityOverride), expiresAt: exemptionEnd(o.createdAt) };
    changed = true;
  }
  return changed ? next : o;
}
