import { Counter, MemoryCounterStore, type LedgerOptions, type Limit, type Verdict } from "../../../../src/core/limiter/index.ts";

const KEY = "counter";

/**
 * A counter object as the gateway runs it, minus the platform: the same Counter the Durable
 * Object runs (src/core/limiter/counter.ts) over an in-memory store. A restart loses everything but
 * the store.
 */
export class SimulatedObject {
  readonly limit: Limit;
  readonly options: LedgerOptions | undefined;
  readonly store = new MemoryCounterStore();
  counter: Counter;
  /** True admission times, across restarts. */
  readonly admitted: number[] = [];

  constructor(limit: Limit, options?: LedgerOptions) {
    this.limit = limit;
    this.options = options;
    this.counter = new Counter(this.store, KEY, options);
  }

  /** Storage writes so far. */
  get writes(): number {
    return this.store.writes;
  }

  /** What storage holds now (reservations only; the snapshot is written by `settle`). */
  get persisted() {
    return this.store.get(KEY)?.reservations ?? [];
  }

  /** Handles one request at `now`. */
  request(now: number): Verdict {
    const [verdict] = this.counter.decide(this.limit, 1, now).verdicts;
    if (verdict!.allowed) this.admitted.push(now);
    return verdict!;
  }

  /** The object's alarm at `now`. */
  settle(now: number): number | undefined {
    return this.counter.settle(now);
  }

  /** Evicted and rebuilt from storage at `now`. */
  restart(now: number): void {
    this.counter = new Counter(this.store, KEY, this.options);
    this.counter.size(this.limit, now);
  }

  /** How many true admissions are in the window at `now`. */
  trueSize(now: number): number {
    return this.admitted.filter((t) => t > now - this.limit.intervalMs).length;
  }

  /** Admissions in the live counter's window at `now`. */
  windowSize(now: number): number {
    return this.counter.size(this.limit, now);
  }

  /** What a restart at `now` would put in the window (without restarting). */
  restoredSize(now: number): number {
    return new Counter(this.store, KEY, this.options).size(this.limit, now);
  }
}
