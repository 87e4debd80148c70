import { systemClock, type Clock } from "./clock.ts";
import { Counting } from "./counting.ts";
import { MetricsBuffer } from "./metrics-buffer.ts";
import { OverrideCopies } from "./override-copies.ts";


/**
 * Everything one isolate keeps in memory between requests, as one object made with one clock:
 * its part of counting (deny cache, leases, local fallback windows, coalesced calls, failures),
 * its copy of the overrides and its metrics not yet handed on. One per gateway (createGateway), so
 * a test can run several gateways in one runtime, each an isolate of its own, and drive their time
 * (docs/counting.md).
 *
 * @example
 * const isolate = new Isolate({ clock: { now: () => t } });
 */
export class Isolate {
  readonly clock: Clock;
  readonly overrides = new OverrideCopies();
  readonly metrics: MetricsBuffer;
  #id: string | undefined;
  #counting: Counting | undefined;

  /** @param options.id how the counter objects know this isolate (random by default) */
  constructor(options: { clock?: Clock; id?: string } = {}) {
    this.clock = options.clock ?? systemClock;
    this.#id = options.id;
    this.metrics = new MetricsBuffer(this.clock);
  }

  /**
   * This isolate's id, sent with its counter calls: leases go only to an isolate that calls a
   * counter alone (src/core/limiter/lease.ts). Made on first use, inside a request: Workers refuse
   * random values while a module is loading.
   */
  get id(): string {
    return (this.#id ??= crypto.randomUUID());
  }

  /** This isolate's part of counting, made on first use (it needs the id). */
  get counting(): Counting {
    return (this.#counting ??= new Counting(this.id, this.clock));
  }
}
