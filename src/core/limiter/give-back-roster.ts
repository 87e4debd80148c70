import TinyQueue from "tinyqueue";

/** One counter's place on the roster: what its give-back is sent as, and from when it may be due. */
interface Entry<T> {
  readonly counter: string;
  readonly item: T;
  readonly dueAt: number;
}

/** One object's counters holding leases here, and the same entries in order of `dueAt`. */
interface ObjectRoster<T> {
  readonly counters: Map<string, Entry<T>>;
  readonly byDueAt: TinyQueue<Entry<T>>;
}

/**
 * Which counters of each counter object hold an admission lease on this isolate, so that a call
 * going to an object anyway can carry the leases due back there (the Coalescer's `riders`) instead
 * of each going back with a call of its own. A counter leaves once it holds nothing; the LeaseBook
 * bounds how many hold leases, so this holds no more.
 *
 * Every call to an object asks, so asking costs only the counters that come due: each is kept in
 * order of when its lease may first be owed (`dueAt`), and only those whose time has come are
 * looked at, each once. A scan of the object's every counter per call made an object with many
 * identities leased here cost each call a look at all of them. A counter that comes due and is
 * not owed after all, or whose riding call fails, is not looked at again until its next lease:
 * riding only saves calls, and every lease also goes back with a call of its own at its end.
 */
export class GiveBackRoster<T> {
  readonly #byObject = new Map<string, ObjectRoster<T>>();

  /**
   * `counter` of `object` holds a lease; `item` is what a give-back for it is sent as, and it cannot
   * be owed before `dueAt` (its lease ends soon then: LeaseBook.owedFrom). A counter added again (a
   * new lease) replaces its entry.
   */
  add(object: string, counter: string, item: T, dueAt: number): void {
    let roster = this.#byObject.get(object);
    if (!roster) this.#byObject.set(object, (roster = { counters: new Map(), byDueAt: new TinyQueue<Entry<T>>([], (a, b) => a.dueAt - b.dueAt) }));
    const entry = { counter, item, dueAt };
    roster.counters.set(counter, entry);
    roster.byDueAt.push(entry);
  }

  /** `counter` of `object` holds nothing any more. */
  drop(object: string, counter: string): void {
    const roster = this.#byObject.get(object);
    if (!roster?.counters.delete(counter) || roster.counters.size > 0) return;
    this.#byObject.delete(object);
  }

  /**
   * The give-backs due at `object` at `now`: the items of its counters whose time has come and that
   * `due` says owe one. Counters `holds` says hold nothing are dropped on the way.
   */
  due(object: string, now: number, due: (counter: string) => boolean, holds: (counter: string) => boolean): T[] {
    const roster = this.#byObject.get(object);
    if (!roster) return [];
    const items: T[] = [];
    const { counters, byDueAt } = roster;
    while (byDueAt.length > 0 && byDueAt.peek()!.dueAt <= now) {
      const entry = byDueAt.pop()!;
      // An entry replaced by a newer lease's, or dropped, is left behind here and skipped.
      if (counters.get(entry.counter) !== entry) continue;
      if (due(entry.counter)) items.push(entry.item);
      else if (!holds(entry.counter)) counters.delete(entry.counter);
    }
    if (counters.size === 0) this.#byObject.delete(object);
    return items;
  }
}
