import { DurableObject } from "cloudflare:workers";
import { boundSnapshot, endOverride, expire, nextExpiry, setOverride, type AuditRecord } from "../core/overrides/changes.ts";
import type { ValidationError } from "../http/fastapi-errors.ts";
import { EMPTY_SNAPSHOT, type AuditEntry, type OverridesSnapshot, type Override, type OverrideChange } from "../core/overrides/types.ts";

/** Audit entries kept; the oldest go first past this. */
export const AUDIT_LIMIT = 10_000;

/** Where the snapshot is stored: the key every version has written, so a deploy keeps the overrides. */
const SNAPSHOT_KEY = "config";
const AUDIT_SEQ = "audit-seq";
const auditKey = (seq: number) => `audit:${String(seq).padStart(12, "0")}`;

export type SetResult =
  | { readonly ok: true; readonly override: Override; readonly previous?: Override; readonly snapshot: OverridesSnapshot }
  | { readonly ok: false; readonly detail: readonly ValidationError[] };

export type EndResult = { readonly ok: true; readonly ended: Override; readonly snapshot: OverridesSnapshot } | { readonly ok: false };

/**
 * The region's runtime configuration (one object per region, `config:<region>`): the active
 * overrides and the audit log, durable in this object's SQLite storage. Every change is
 * serialized here, so each one is recorded against exactly the configuration it replaced. Thin:
 * what a change does is src/core/overrides/changes.ts. Validation happens before a change gets here
 * (src/core/overrides/request.ts); this object only refuses an expiry already past by its clock.
 */
export class OverridesStore extends DurableObject {
  /** The clock; tests replace it through `runInDurableObject` to move time. */
  now: () => number = () => Date.now();

  /** The configuration as every isolate caches it (expired overrides already dropped). */
  snapshot(): OverridesSnapshot {
    return this.#current();
  }

  set(change: OverrideChange, actor: string): SetResult {
    const result = setOverride(this.#current(), change, { now: this.now(), actor, id: crypto.randomUUID() });
    if (!result.ok) return result;
    this.#save(result.snapshot, [result.audit]);
    return { ok: true, override: result.override!, ...(result.previous && { previous: result.previous }), snapshot: result.snapshot };
  }

  end(id: string, actor: string): EndResult {
    const result = endOverride(this.#current(), id, { now: this.now(), actor });
    if (!result) return { ok: false };
    this.#save(result.snapshot, [result.audit]);
    return { ok: true, ended: result.previous!, snapshot: result.snapshot };
  }

  /** The newest `limit` entries (at most 1000), newest first; `before` pages back by `seq`. */
  audit(limit = 100, before?: number): AuditEntry[] {
    this.#current();
    const kv = this.ctx.storage.kv;
    const last = kv.get<number>(AUDIT_SEQ) ?? 0;
    const end = Math.min(last, (before ?? last + 1) - 1);
    const entries: AuditEntry[] = [];
    for (const [, entry] of kv.list<AuditEntry>({ prefix: "audit:", end: auditKey(end + 1), reverse: true, limit: Math.min(Math.max(1, limit), 1000) }))
      entries.push(entry);
    return entries;
  }

  /** Drops overrides as they expire, so the audit log records each expiry when it happens. */
  override async alarm(): Promise<void> {
    this.#current();
  }

  /**
   * The stored configuration, after recording the expiries that are due. An override stored
   * before the bounds (src/core/overrides/bounds.ts) that breaks them is clamped, or ended, once, with
   * an audit entry and a logged warning (docs/overrides.md, "Overrides stored before the bounds").
   */
  #current(): OverridesSnapshot {
    const stored = this.ctx.storage.kv.get<OverridesSnapshot>(SNAPSHOT_KEY) ?? EMPTY_SNAPSHOT;
    const now = this.now();
    const bounded = boundSnapshot(stored, now);
    for (const audit of bounded.audits) {
      // By id only, as every override log line: its target names an identity digest, which stays
      // in the audit log (an object of the region's jurisdiction), never in the logs.
      console.log(JSON.stringify({ event: "override_out_of_bounds", level: "warn", id: audit.previous!.id, action: audit.action }));
    }
    const { snapshot, audits } = expire(bounded.snapshot, now);
    if (bounded.audits.length + audits.length > 0) this.#save(snapshot, [...bounded.audits, ...audits]);
    return snapshot;
  }

  #save(snapshot: OverridesSnapshot, audits: readonly AuditRecord[]): void {
    const kv = this.ctx.storage.kv;
    kv.put(SNAPSHOT_KEY, snapshot);
    let seq = kv.get<number>(AUDIT_SEQ) ?? 0;
    for (const record of audits) {
      seq++;
      kv.put(auditKey(seq), { seq, ...record });
      if (seq > AUDIT_LIMIT) kv.delete(auditKey(seq - AUDIT_LIMIT));
    }
    kv.put(AUDIT_SEQ, seq);
    const next = nextExpiry(snapshot);
    // Not awaited: the output gate holds the reply until the alarm is stored with the writes.
    if (next === undefined) void this.ctx.storage.deleteAlarm();
    else void this.ctx.storage.setAlarm(next);
  }
}
