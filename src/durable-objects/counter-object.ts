import { DurableObject } from "cloudflare:workers";
import { Counter, FixedWindow, verdictOf } from "../limiter/index.ts";
import type { Algorithm, CounterStore, FallbackReport, Inspection, LeaseGrant, LeaseRequest, Limit, StoredCounter, Verdict } from "../limiter/index.ts";

/** What the counter answers per hit (the limiter's one answer type, see src/limiter/types.ts). */
export type { Verdict } from "../limiter/index.ts";

/** Requests for one counter that arrived together at an isolate, decided in one call. */
export interface HitBatch {
  /**
   * Which counter of this object: "" when the object holds one counter (its name says which),
   * otherwise the counter's key within the object.
   */
  readonly key?: string;
  readonly limit: Limit;
  readonly algorithm?: Algorithm;
  /** How many requests, decided in order. */
  readonly hits: number;
  /**
   * Admissions the isolate made on its own while this object did not answer (LocalFallback), by
   * age, recorded before the hits are decided, so the object counts them too (each report once).
   */
  readonly recorded?: readonly FallbackReport[];
  /** Which isolate calls, units it would lease, and a lease it gives back (src/limiter/lease.ts). */
  readonly lease?: LeaseRequest;
}

/** The answer to a HitBatch: a verdict per hit, in order, and the units leased, if any. */
export interface BatchAnswer {
  readonly verdicts: Verdict[];
  readonly lease?: LeaseGrant;
}

/** Most requests one call decides; a gateway batch is bounded by what arrives during one call. */
export const MAX_BATCH = 100_000;

/** Storage key of a counter: one key per counter, so an object can hold several. */
const PREFIX = "ledger";
const storageKey = (key: string) => (key === "" ? PREFIX : `${PREFIX}:${key}`);

/**
 * Counter objects: one exact sliding-window Counter (src/limiter/counter.ts) per key, persisted in
 * this object's SQLite KV storage. Each `hitBatch` runs synchronously, so concurrent calls are
 * serialized by the object and can never both take the last unit. The object's only other job is
 * the alarm that lets each counter settle (snapshot when idle, clean-up when stale).
 */
export class RateLimiter extends DurableObject {
  readonly #counters = new Map<string, Counter>();
  /** Scheduled alarm: a time, null when none, undefined when unknown (a fresh instance). */
  #alarmAt: number | null | undefined;
  /** Only under the development setting LIMITER_ALGORITHM=fixed-window; memory only. */
  readonly #fixed = new Map<string, FixedWindow>();
  readonly #store: CounterStore = {
    get: (key) => this.ctx.storage.kv.get<StoredCounter>(storageKey(key)),
    put: (key, value) => this.ctx.storage.kv.put(storageKey(key), value),
    delete: (key) => void this.ctx.storage.kv.delete(storageKey(key)),
  };

  /** The clock; tests replace it through `runInDurableObject` to move time. */
  now: () => number = () => Date.now();

  /** Decide one request against `limit`, recording it when admitted. */
  hit(limit: Limit, algorithm: Algorithm = "sliding-window"): Verdict {
    return this.hitBatch({ limit, algorithm, hits: 1 })[0]!;
  }

  /**
   * Decide `hits` requests that arrived together, in order, exactly as that many `hit` calls at
   * this instant would.
   */
  hitBatch(batch: HitBatch): Verdict[] {
    return this.decideBatch(batch).verdicts;
  }

  /** `hitBatch`, with the lease the isolate asked for. */
  decideBatch(batch: HitBatch): BatchAnswer {
    return this.decideMany([batch])[0]!;
  }

  /**
   * Several counters' batches in one call (what the gateway sends: every request for this object
   * that queued in an isolate while its last call was in flight), each decided as `decideBatch`
   * would, in order, at one instant. One call, one storage commit and at most one alarm write for
   * them all.
   */
  decideMany(batches: readonly HitBatch[]): BatchAnswer[] {
    if (!Array.isArray(batches) || batches.length < 1) throw new RangeError("batches must be a non-empty list");
    let total = 0;
    for (const { hits } of batches) {
      if (!Number.isInteger(hits) || hits < 1 || hits > MAX_BATCH) throw new RangeError(`hits must be a whole number from 1 to ${MAX_BATCH}`);
      total += hits;
    }
    if (total > MAX_BATCH) throw new RangeError(`a call decides at most ${MAX_BATCH} hits`);
    const now = this.now();
    let settleAt = Number.POSITIVE_INFINITY;
    const answers = batches.map((batch): BatchAnswer => {
      const answer = this.#decide(batch, now);
      if (answer.settleAt !== undefined) settleAt = Math.min(settleAt, answer.settleAt);
      return answer.lease ? { verdicts: answer.verdicts, lease: answer.lease } : { verdicts: answer.verdicts };
    });
    // Not awaited: the output gate holds this reply until the writes are durable, and writes made
    // by concurrent calls coalesce into one batch. An alarm already due no later than the
    // earliest settle time serves it too (the alarm settles every counter), so most calls write
    // no alarm at all.
    if (settleAt !== Number.POSITIVE_INFINITY && !(typeof this.#alarmAt === "number" && this.#alarmAt <= settleAt)) this.#arm(settleAt);
    return answers;
  }

  /** One counter's batch; `settleAt` when it wrote storage (the counter must settle by then). */
  #decide({ key = "", limit, algorithm = "sliding-window", hits, recorded = [], lease }: HitBatch, now: number): BatchAnswer & { settleAt?: number } {
    if (algorithm === "fixed-window") {
      let fixed = this.#fixed.get(key);
      if (!fixed) this.#fixed.set(key, (fixed = new FixedWindow(limit)));
      return { verdicts: Array.from({ length: hits }, () => verdictOf(fixed.hit(now), now)) };
    }
    const { verdicts, lease: granted, wrote, settleAt } = this.#counter(key).decide(limit, hits, now, { recorded, ...(lease && { lease }) });
    return { verdicts, ...(granted && { lease: granted }), ...(wrote && { settleAt }) };
  }

  /**
   * Reads one counter without recording a request, writing storage or arming an alarm (the admin
   * API's inspection). A counter not in memory is read from storage into a throwaway Counter, so
   * the object is left exactly as it was.
   */
  inspect({ key = "", limit }: { key?: string; limit: Limit }): Inspection {
    return (this.#counters.get(key) ?? new Counter(this.#store, key)).inspect(limit, this.now());
  }

  /** Lets every counter settle, then sleeps until the earliest one needs it again. */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    const now = this.now();
    for (const [stored] of this.ctx.storage.kv.list({ prefix: PREFIX })) {
      const key = stored === PREFIX ? "" : stored.slice(PREFIX.length + 1);
      if (!this.#counters.has(key)) this.#counters.set(key, new Counter(this.#store, key));
    }
    let next = Number.POSITIVE_INFINITY;
    let stored = 0;
    for (const [key, counter] of this.#counters) {
      const at = counter.settle(now);
      if (at !== undefined) {
        stored++;
        next = Math.min(next, at);
      }
      // Settled or gone: storage holds it exactly, so memory keeps only the counters in use (an
      // object holds many identities' counters; they are reloaded when their next request comes).
      if (at === undefined || counter.quiet(now)) this.#counters.delete(key);
    }
    if (stored === 0) {
      // Nothing left that can matter: no storage, no alarm.
      await this.ctx.storage.deleteAll();
      return;
    }
    this.#arm(next);
  }

  /** Counters held in memory (the rest are in storage only), for tests. */
  countersInMemory(): number {
    return this.#counters.size;
  }

  #counter(key: string): Counter {
    let counter = this.#counters.get(key);
    if (!counter) this.#counters.set(key, (counter = new Counter(this.#store, key)));
    return counter;
  }

  #arm(at: number): void {
    this.#alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }
}
