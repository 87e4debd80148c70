/**
 * Events for one listener, in order: pushed by whoever produces them (the run engine), drained by
 * one stream. Pushing never waits, so a slow reader cannot stall a run; `end` lets the reader
 * finish what is queued and stop.
 */
export class EventQueue<T> {
  readonly #items: T[] = [];
  #ended = false;
  #wake: (() => void) | undefined;

  push(item: T): void {
    if (this.#ended) return;
    this.#items.push(item);
    this.#wake?.();
  }

  end(): void {
    this.#ended = true;
    this.#wake?.();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Everything pushed, until `end` (what was queued before it included). */
  async *drain(): AsyncGenerator<T> {
    for (;;) {
      while (this.#items.length > 0) yield this.#items.shift()!;
      if (this.#ended) return;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
      });
      this.#wake = undefined;
    }
  }
}
