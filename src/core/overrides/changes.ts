import { exemptionEnd, MAX_EXEMPTION_S, MAX_LIFETIME_S, withinBounds } from "./bounds.ts";
import type { ValidationError } from "../../http/fastapi-errors.ts";
import { describeSubject } from "./subject.ts";
import type { AuditEntry, OverridesSnapshot, Override, OverrideChange } from "./types.ts";

/*
 * How the configuration changes: the pure core of the overrides store
 * (src/durable-objects/overrides-store.ts), time and ids passed in. An override replaces the one with
 * the same target (a rule; or an identity on a rule, or on every rule), so each target has at most
 * one, and every change yields the audit entry that records it with what it replaced.
 */

/** An audit entry before the log numbers it. */
export type AuditRecord = Omit<AuditEntry, "seq">;

export interface ChangeContext {
  readonly now: number;
  /** The admin token's name. */
  readonly actor: string;
  /** The new override's id (the store draws it). */
  readonly id: string;
}

type Changed = {
  readonly ok: true;
  readonly snapshot: OverridesSnapshot;
  readonly override?: Override;
  readonly previous?: Override;
  readonly audit: AuditRecord;
};

/** What an override is about; two overrides with one target cannot both be active. */
export function targetOf(o: Override | OverrideChange): string {
  if (o.kind === "rule") return `rule ${o.rule}`;
  return `${describeSubject(o.subject)} on ${o.rule === undefined ? "every rule" : `rule ${o.rule}`}`;
}

/** Full target key (the digest in full, unlike the text shown to people). */
function targetKey(o: Override | OverrideChange): string {
  return o.kind === "rule" ? `rule:${o.rule}` : `identity:${o.subject.kind}:${o.subject.digest}:${o.rule ?? "*"}`;
}

/**
 * Records `change` as a new override, replacing the one with the same target (the audit entry
 * keeps the replaced one as `previous`). An expiry not after `now` is refused.
 */
export function setOverride(snapshot: OverridesSnapshot, change: OverrideChange, ctx: ChangeContext): Changed | { ok: false; detail: ValidationError[] } {
  const { expiresInSeconds, expiresAt: at, ...rest } = change;
  const expiresAt = expiresInSeconds !== undefined ? ctx.now + expiresInSeconds * 1000 : at;
  const field = expiresInSeconds !== undefined ? "expiresInSeconds" : "expiresAt";
  const refuse = (msg: string) => ({ ok: false as const, detail: [{ loc: ["body", field], msg, type: "value_error" }] });
  if (expiresAt !== undefined && expiresAt <= ctx.now) return refuse(`must lie in the future (now is ${new Date(ctx.now).toISOString()})`);
  if (expiresAt !== undefined && expiresAt > ctx.now + MAX_LIFETIME_S * 1000)
    return refuse(`must lie at most ${MAX_LIFETIME_S / 86_400} days ahead (now is ${new Date(ctx.now).toISOString()})`);
  if (change.kind === "identity" && change.action === "exempt") {
    // An exemption stops all counting for a caller: it must end on its own (bounds.ts).
    if (expiresAt === undefined) return refuse(`an exemption needs an expiry (expiresAt or expiresInSeconds), at most ${MAX_EXEMPTION_S / 86_400} days ahead`);
    if (expiresAt > exemptionEnd(ctx.now)) return refuse(`an exemption lasts at most ${MAX_EXEMPTION_S / 86_400} days (${MAX_EXEMPTION_S} s)`);
  }
  const override = { ...rest, id: ctx.id, createdAt: ctx.now, createdBy: ctx.actor, ...(expiresAt !== undefined && { expiresAt }) } as Override;
  const previous = snapshot.overrides.find((o) => targetKey(o) === targetKey(override));
  const overrides = [...snapshot.overrides.filter((o) => o !== previous), override];
  return {
    ok: true,
    snapshot: { version: snapshot.version + 1, overrides },
    override,
    previous,
    audit: { at: ctx.now, actor: ctx.actor, action: "set", target: targetOf(override), override, ...(previous && { previous }) },
  };
}

/** Ends the override `id` before its expiry; undefined when there is no such active override. */
export function endOverride(snapshot: OverridesSnapshot, id: string, ctx: Omit<ChangeContext, "id">): Changed | undefined {
  const previous = snapshot.overrides.find((o) => o.id === id);
  if (!previous) return undefined;
  return {
    ok: true,
    snapshot: { version: snapshot.version + 1, overrides: snapshot.overrides.filter((o) => o !== previous) },
    previous,
    audit: { at: ctx.now, actor: ctx.actor, action: "end", target: targetOf(previous), previous },
  };
}

/** Drops the overrides that expired by `now`, with an audit entry each (actor "expiry"). */
export function expire(snapshot: OverridesSnapshot, now: number): { snapshot: OverridesSnapshot; audits: AuditRecord[] } {
  const expired = snapshot.overrides.filter((o) => o.expiresAt !== undefined && o.expiresAt <= now);
  if (expired.length === 0) return { snapshot, audits: [] };
  return {
    snapshot: { version: snapshot.version + 1, overrides: snapshot.overrides.filter((o) => !expired.includes(o)) },
    audits: expired.map((o) => ({ at: o.expiresAt!, actor: "expiry", action: "expire", target: targetOf(o), previous: o })),
  };
}

/**
 * A stored configuration brought within the bounds (bounds.ts, withinBounds on each override), with
 * an audit entry (actor "bounds": action "clamp", or "end" for one nothing can make allowed) for
 * each override it changed. The same configuration, and no entries, when all are within them.
 */
export function boundSnapshot(snapshot: OverridesSnapshot, now: number): { snapshot: OverridesSnapshot; audits: AuditRecord[] } {
  const audits: AuditRecord[] = [];
  const overrides: Override[] = [];
  for (const o of snapshot.overrides) {
    const bounded = withinBounds(o);
    if (bounded === o) {
      overrides.push(o);
      continue;
    }
    if (bounded) overrides.push(bounded);
    audits.push({ at: now, actor: "bounds", action: bounded ? "clamp" : "end", target: targetOf(o), ...(bounded && { override: bounded }), previous: o });
  }
  if (audits.length === 0) return { snapshot, audits };
  return { snapshot: { version: snapshot.version + 1, overrides }, audits };
}

/** When the next override expires, for the store's alarm. */
export function nextExpiry(snapshot: OverridesSnapshot): number | undefined {
  const times = snapshot.overrides.flatMap((o) => (o.expiresAt === undefined ? [] : [o.expiresAt]));
  return times.length > 0 ? Math.min(...times) : undefined;
}
