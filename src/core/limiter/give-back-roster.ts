/**
 * Which counters of each counter object hold an admission lease on this isolate, so that a call
 * going to an object anyway can carry the leases due back there (the Coalescer's `riders`) instead
 * of each going back with a call of its own. A counter leaves once it holds nothing; the LeaseBook
 * bounds how many hold leases, so this holds no more.
 */
export class GiveBackRoster<T> {
  readonly #byObject = new Map<string, Map<string, T>>();

  /** `counter` of `object` holds a lease; `item` is what a give-back for it is sent as. */
  add(object: string, counter: string, item: T): void {
    let counters = this.#byObject.get(object);
    if (!counters) this.#byObject.set(object, (counters = new Map()));
    counters.set(counter, item);
  }

  /** `counter` of `object` holds nothing any more. */
  drop(object: string, counter: string): void {
    const counters = this.#byObject.get(object);
    if (!counters?.delete(counter) || counters.size > 0) return;
    this.#byObject.delete(object);
  }

  /**
   * The give-backs due at `object`: the items of its counters `due` says owe one now. Counters
   * `holds` says hold nothing are dropped on the way.
   */
  due(object: string, due: (counter: string) => boolean, holds: (counter: string) => boolean): T[] {
    const counters = this.#byObject.get(object);
    if (!counters) return [];
    const items: T[] = [];
    for (const [counter, item] of counters) {
      if (due(counter)) items.push(item);
      else if (!holds(counter)) counters.delete(counter);
    }
    if (counters.size === 0) this.#byObject.delete(object);
    return items;
  }
}
