import { setBounded } from "./bounded-map.ts";
import type { SlidingWindow } from "./sliding-window.ts";
import type { Limit, WindowAnswer } from "./types.ts";

/** What a LocalWindows holds per key: the key's window, and whatever its owner keeps beside it. */
export interface Windowed {
  readonly window: SlidingWindow;
}

export interface LocalWindowsOptions<Entry extends Windowed> {
  /** Keys held before a new one must make room. */
  readonly max: number;
  /** The entry of a key not held yet: its window (seeded, if the owner knows earlier admissions) and what goes beside it. */
  readonly open: (key: string, limit: Limit, now: number) => Entry;
  /**
   * Whether a held entry must stay past the bound. Without it the bound is hard: the least
   * recently used key goes, whatever its window holds. With it, only entries it lets go make
   * room, looked for among a few of the oldest opened per new key; past the bound, memory
   * follows the entries that must stay.
   */
  readonly keep?: (entry: Entry, now: number) => boolean;
}

/**
 * Sliding windows of the same kind as the counter objects' (SlidingWindow), one per key, kept in
 * an isolate's memory and bounded in number: how an isolate decides on its own while the objects
 * that hold the real counts fail. The request path's LocalFallback (fallback.ts) keeps its
 * reports beside each window and never lets go of one holding admissions not yet told; the admin
 * throttle (src/gateway/admin-throttle.ts) reports nothing and keeps a hard bound.
 */
export class LocalWindows<Entry extends Windowed> {
  readonly #entries = new Map<string, Entry>();
  readonly #max: number;
  readonly #open: LocalWindowsOptions<Entry>["open"];
  readonly #keep: LocalWindowsOptions<Entry>["keep"];

  constructor(options: LocalWindowsOptions<Entry>) {
    this.#max = options.max;
    this.#open = options.open;
    this.#keep = options.keep;
  }

  /**
   * The entry of `key`, opened when not held, its window set to `limit`. Under a hard bound it
   * becomes the most recently used.
   */
  entry(key: string, limit: Limit, now: number): Entry {
    const held = this.#entries.get(key);
    if (held) {
      held.window.setLimit(limit);
      this.#touch(key, held);
      return held;
    }
    const opened = this.#open(key, limit, now);
    if (this.#keep) {
      this.#makeRoom(this.#keep, now);
      this.#entries.set(key, opened);
    } else {
      setBounded(this.#entries, key, opened, this.#max);
    }
    return opened;
  }

  /** Decides the request of `key` at `now`, recording it when admitted. */
  hit(key: string, limit: Limit, now: number): WindowAnswer {
    return this.entry(key, limit, now).window.hit(now);
  }

  /**
   * What `hit` would decide, without counting and without opening: a key not held is read on the
   * window `open` would give it, which is not kept. A held key counts as used (hard bound).
   */
  peek(key: string, limit: Limit, now: number): WindowAnswer {
    const held = this.#entries.get(key);
    if (!held) return this.#open(key, limit, now).window.peek(now);
    held.window.setLimit(limit);
    this.#touch(key, held);
    return held.window.peek(now);
  }

  /** The entry of `key` if held, as it is (neither used nor opened). */
  get(key: string): Entry | undefined {
    return this.#entries.get(key);
  }

  has(key: string): boolean {
    return this.#entries.has(key);
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  /** Keys held now. */
  get size(): number {
    return this.#entries.size;
  }

  #touch(key: string, entry: Entry): void {
    // Only a hard bound goes by recency; otherwise the order is the order opened.
    if (!this.#keep) setBounded(this.#entries, key, entry, this.#max);
  }

  /** Past the bound, drops the entries `keep` lets go among the oldest few (ROOM_LOOK). */
  #makeRoom(keep: NonNullable<LocalWindowsOptions<Entry>["keep"]>, now: number): void {
    if (this.#entries.size < this.#max) return;
    let looked = 0;
    for (const [key, entry] of this.#entries) {
      if (++looked > ROOM_LOOK) return;
      if (!keep(entry, now)) this.#entries.delete(key);
    }
  }
}

/** Oldest entries looked at for one that may go, per new key past a bound with `keep`. */
const ROOM_LOOK = 64;
