/*
 * Concurrency slots: how many requests one identity holds open at once (a concurrency rule,
 * src/core/rules/concurrency-rules.ts; docs/counting.md, "Concurrency"). One SlotBook is the state
 * of one concurrency counter, kept by its Durable Object (src/durable-objects/slots-object.ts).
 * Pure: time comes in as `now` (ms).
 */

/** A slot to take, as a holder asks its slots object: its own id for it, the rule's limit, and how long its lease runs. */
export interface SlotTake {
  readonly slot: string;
  readonly limit: number;
  readonly leaseMs: number;
}

/** A slot taken: its id, until when its lease runs, and how many slots are in use with it. */
export interface SlotGranted {
  readonly granted: true;
  readonly slot: string;
  /** When the lease lapses unless renewed (the book's clock). */
  readonly until: number;
  /** Live slots, this one included. */
  readonly inUse: number;
  readonly limit: number;
}

/** No slot: `limit` are in use. */
export interface SlotRefused {
  readonly granted: false;
  readonly inUse: number;
  readonly limit: number;
  /**
   * The soonest a slot frees without any holder giving one back: when the earliest lease lapses
   * (its holder gone, as when its isolate vanished). A slot may free sooner, when a holder
   * releases it (a socket closes); no one can promise when that happens.
   */
  readonly retryInMs: number;
}

export type SlotAnswer = SlotGranted | SlotRefused;

/** A renewal: the lease extended, or the slot gone (its lease lapsed, or it was released). */
export type SlotRenewal = { readonly held: true; readonly until: number } | { readonly held: false };

/**
 * The live slots of one concurrency counter, each with the end of its lease. A holder takes a slot
 * under an id of its own making (so a take whose answer was lost can be taken again or released
 * by that id, never leaking a second slot), renews it before its lease lapses, and releases it
 * when done. A slot not renewed in time lapses and frees: a holder that vanished (its isolate
 * evicted) or whose release never arrived leaks its slots for at most one lease. Lapsed slots are
 * dropped as the book meets them (`take`, `renew`, `prune`), each op saying which, so the object
 * deletes them from storage too.
 *
 * @example
 * const book = new SlotBook();
 * const answer = book.take("isolate-1:7", now, 100, 30_000); // granted: { slot, until, inUse }
 * book.renew("isolate-1:7", now + 10_000, 30_000); // { held: true, until: now + 40_000 }
 * book.release("isolate-1:7");
 */
export class SlotBook {
  /** Slot id -> lease end. */
  readonly #held = new Map<string, number>();

  /** @param held slots as stored (id, lease end), e.g. reloaded after a restart of the object */
  constructor(held: Iterable<readonly [string, number]> = []) {
    for (const [slot, until] of held) this.#held.set(slot, until);
  }

  /**
   * Takes a slot for `slot` (a new id), leased for `leaseMs` from `now`, if fewer than `limit`
   * are live; an id already held is renewed instead (a retried take). Slots that lapsed are
   * dropped first and listed in `lapsed`.
   */
  take(slot: string, now: number, limit: number, leaseMs: number): SlotAnswer & { readonly lapsed: readonly string[] } {
    const lapsed = this.prune(now);
    const until = now + leaseMs;
    if (this.#held.has(slot)) {
      this.#held.set(slot, Math.max(until, this.#held.get(slot)!));
      return { granted: true, slot, until: this.#held.get(slot)!, inUse: this.#held.size, limit, lapsed };
    }
    if (this.#held.size >= limit) {
      let earliest = Number.POSITIVE_INFINITY;
      for (const end of this.#held.values()) earliest = Math.min(earliest, end);
      return { granted: false, inUse: this.#held.size, limit, retryInMs: Math.max(1, earliest - now), lapsed };
    }
    this.#held.set(slot, until);
    return { granted: true, slot, until, inUse: this.#held.size, limit, lapsed };
  }

  /**
   * Extends `slot`'s lease to `now + leaseMs` if it is still held; a slot whose lease lapsed
   * (`until <= now`) is gone, even if no take has dropped it yet, since another may have been
   * granted in its place.
   */
  renew(slot: string, now: number, leaseMs: number): SlotRenewal {
    const until = this.#held.get(slot);
    if (until === undefined) return { held: false };
    if (until <= now) {
      this.#held.delete(slot);
      return { held: false };
    }
    const next = Math.max(until, now + leaseMs);
    this.#held.set(slot, next);
    return { held: true, until: next };
  }

  /** Gives `slot` back; true if it was held. Releasing an unknown or released slot changes nothing. */
  release(slot: string): boolean {
    return this.#held.delete(slot);
  }

  /** Drops every slot whose lease lapsed by `now`, returning their ids. */
  prune(now: number): string[] {
    const lapsed: string[] = [];
    for (const [slot, until] of this.#held) {
      if (until <= now) {
        this.#held.delete(slot);
        lapsed.push(slot);
      }
    }
    return lapsed;
  }

  /** Slots live at `now` (those whose lease has not lapsed). */
  inUse(now: number): number {
    let live = 0;
    for (const until of this.#held.values()) if (until > now) live++;
    return live;
  }

  /** When the last lease lapses (the book is then empty unless renewed), or undefined when empty. */
  lastLapse(): number | undefined {
    let last: number | undefined;
    for (const until of this.#held.values()) last = last === undefined ? until : Math.max(last, until);
    return last;
  }

  /** The slots as stored: id and lease end, lapsed ones included until pruned. */
  entries(): [string, number][] {
    return [...this.#held];
  }
}
