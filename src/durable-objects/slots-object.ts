import { DurableObject } from "cloudflare:workers";
import { SlotBook, type SlotAnswer, type SlotRenewal, type SlotTake } from "../core/limiter/index.ts";

/** Longest lease a holder may ask for: a slot whose holder vanished frees within it. */
export const MAX_SLOT_LEASE_MS = 600_000;
/** Longest slot id accepted (the gateway's are an isolate id and a sequence number). */
const MAX_SLOT_ID = 200;

/** Storage key of a slot: one row per slot, so a renewal writes one small value. */
const PREFIX = "slot:";

/**
 * Slots objects: one per concurrency counter, (region, concurrency rule, identity digest) as its
 * name (src/gateway/concurrency.ts), holding that counter's SlotBook (src/core/limiter/slots.ts)
 * in its SQLite KV storage, a row per slot with its lease end, so a restarted object loses no slot
 * held. Every call runs synchronously, so two takes can never both get the last slot. Lapsed slots
 * are dropped as calls meet them, and by an alarm at the last lease's end, so an identity that
 * stopped holding anything leaves no storage behind.
 */
export class SlotsObject extends DurableObject {
  /** The book, loaded from storage at this instance's first call. */
  #book: SlotBook | undefined;
  /** Scheduled alarm: a time, null when none, undefined when unknown (a fresh instance). */
  #alarmAt: number | null | undefined;

  /** The clock; tests replace it through `runInDurableObject` to move time. */
  now: () => number = () => Date.now();

  /** Takes a slot (or renews one the holder already has: a retried take), if fewer than `limit` are live. */
  take({ slot, limit, leaseMs }: SlotTake): SlotAnswer {
    checkSlot(slot);
    if (!Number.isInteger(limit) || limit < 0) throw new RangeError("limit must be a whole number");
    checkLease(leaseMs);
    const book = this.#loaded();
    const { lapsed, ...answer } = book.take(slot, this.now(), limit, leaseMs);
    for (const gone of lapsed) this.ctx.storage.kv.delete(PREFIX + gone);
    if (answer.granted) {
      this.ctx.storage.kv.put(PREFIX + slot, answer.until);
      void this.#armIfIdle(answer.until);
    }
    return answer;
  }

  /** Extends `slot`'s lease, or says it is gone (lapsed or released): its holder must then let go. */
  renew({ slot, leaseMs }: { slot: string; leaseMs: number }): SlotRenewal {
    checkSlot(slot);
    checkLease(leaseMs);
    const renewal = this.#loaded().renew(slot, this.now(), leaseMs);
    if (renewal.held) this.ctx.storage.kv.put(PREFIX + slot, renewal.until);
    else this.ctx.storage.kv.delete(PREFIX + slot);
    return renewal;
  }

  /** Gives `slot` back; true if it was held. Unknown and repeated releases change nothing. */
  release({ slot }: { slot: string }): boolean {
    checkSlot(slot);
    const released = this.#loaded().release(slot);
    if (released) this.ctx.storage.kv.delete(PREFIX + slot);
    return released;
  }

  /** Slots live now (the admin API's and the tests' view; records nothing). */
  inUse(): number {
    return this.#loaded().inUse(this.now());
  }

  /** Drops lapsed slots; sleeps until the last live lease could lapse, or clears storage when none is left. */
  override async alarm(): Promise<void> {
    this.#alarmAt = null;
    const book = this.#loaded();
    for (const gone of book.prune(this.now())) this.ctx.storage.kv.delete(PREFIX + gone);
    const last = book.lastLapse();
    if (last === undefined) {
      await this.ctx.storage.deleteAll();
      return;
    }
    this.#arm(last);
  }

  #loaded(): SlotBook {
    if (!this.#book) {
      const held: [string, number][] = [];
      for (const [key, until] of this.ctx.storage.kv.list<number>({ prefix: PREFIX })) held.push([key.slice(PREFIX.length), until]);
      this.#book = new SlotBook(held);
    }
    return this.#book;
  }

  /**
   * Arms the clean-up alarm when none is set. Renewals move leases later without touching it: an
   * alarm that fires before the last lease's end drops what lapsed and sleeps again.
   */
  async #armIfIdle(at: number): Promise<void> {
    if (this.#alarmAt === undefined) this.#alarmAt = await this.ctx.storage.getAlarm();
    if (this.#alarmAt === null) this.#arm(at);
  }

  #arm(at: number): void {
    this.#alarmAt = at;
    void this.ctx.storage.setAlarm(at);
  }
}

function checkSlot(slot: unknown): void {
  if (typeof slot !== "string" || slot.length < 1 || slot.length > MAX_SLOT_ID) throw new RangeError(`slot must be an id of 1 to ${MAX_SLOT_ID} characters`);
}

function checkLease(leaseMs: unknown): void {
  if (!Number.isInteger(leaseMs) || (leaseMs as number) < 1 || (leaseMs as number) > MAX_SLOT_LEASE_MS) {
    throw new RangeError(`leaseMs must be a whole number from 1 to ${MAX_SLOT_LEASE_MS}`);
  }
}
