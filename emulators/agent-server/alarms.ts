/**
 * Something in the state object that needs waking at a time: the run engine (a heartbeat while
 * runs are in flight), crons (their next fire time). A Durable Object has one alarm, so the
 * object rings it for all of them and sets it to the earliest time any of them asks for.
 */
export interface Wakeable {
  /** When it next needs waking (epoch ms), or undefined for never. */
  nextWake(now: number): number | undefined;
  /** Its time came (or another's did: it checks for itself what is due). */
  wake(now: number): void | Promise<void>;
}

/** The state object's one alarm, shared by everything that needs waking. */
export class AlarmClock {
  readonly #storage: DurableObjectStorage;
  readonly #sleepers: Wakeable[] = [];
  #armedFor: number | undefined;

  constructor(storage: DurableObjectStorage) {
    this.#storage = storage;
  }

  add(sleeper: Wakeable): void {
    this.#sleepers.push(sleeper);
  }

  /** The alarm rang: wakes everyone, then sets it for the next time anyone needs. */
  async ring(): Promise<void> {
    this.#armedFor = undefined;
    const now = Date.now();
    for (const sleeper of this.#sleepers) await sleeper.wake(now);
    this.rearm();
  }

  /**
   * Sets the alarm for the earliest time anyone needs (or clears it). Not awaited: the write is
   * ordered with the object's other storage writes, and the output gate holds any response until
   * it is durable.
   */
  rearm(): void {
    const now = Date.now();
    const times = this.#sleepers.map((s) => s.nextWake(now)).filter((t): t is number => t !== undefined);
    const at = times.length > 0 ? Math.min(...times) : undefined;
    // A heartbeat that is already set for soon enough stays: re-arming on every step would be a
    // storage write per step.
    if (at !== undefined && this.#armedFor !== undefined && this.#armedFor > now && this.#armedFor <= at) return;
    if (at === undefined && this.#armedFor === undefined) return;
    this.#armedFor = at;
    void (at === undefined ? this.#storage.deleteAlarm() : this.#storage.setAlarm(at));
  }
}
