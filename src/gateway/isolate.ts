import type { Env } from "../env.ts";
import { AdminThrottle } from "./admin-throttle.ts";
import { systemClock, type Clock } from "./clock.ts";
import { Counting } from "./counting.ts";
import { MetricsBuffer } from "./metrics-buffer.ts";
import { OverridesCache } from "./overrides.ts";
import { RegionRuntime } from "./region-runtime.ts";
import { gatewaySettings, type GatewaySettings } from "./settings.ts";

/**
 * Everything one isolate keeps in memory between requests, as one object made with one clock:
 * its part of counting (deny cache, leases, local fallback windows, coalesced calls, failures),
 * its cache of the overrides, its metrics not yet handed on and the admin throttle's local
 * windows. One per gateway (createGateway), so a test can run several gateways in one runtime,
 * each an isolate of its own, and drive their time (docs/counting.md). The admin API works with
 * it through `runtime(env)` (src/gateway/region-runtime.ts).
 *
 * @example
 * const isolate = new Isolate({ clock: { now: () => t } });
 */
export class Isolate {
  readonly clock: Clock;
  readonly overrides: OverridesCache;
  readonly metrics: MetricsBuffer;
  readonly adminThrottle: AdminThrottle;
  #id: string | undefined;
  #counting: Counting | undefined;
  readonly #runtimes = new WeakMap<GatewaySettings, RegionRuntime>();

  /** @param options.id how the counter objects know this isolate (random by default) */
  constructor(options: { clock?: Clock; id?: string } = {}) {
    this.clock = options.clock ?? systemClock;
    this.#id = options.id;
    this.overrides = new OverridesCache(this.clock);
    this.metrics = new MetricsBuffer(this.clock);
    this.adminThrottle = new AdminThrottle(this.clock);
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

  /**
   * This isolate's runtime for the region `env` configures, made once per checked settings (an
   * isolate's env is stable; tests give each gateway its own).
   *
   * @throws SettingError while the gateway is misconfigured (gatewaySettings).
   */
  runtime(env: Env): RegionRuntime {
    const settings = gatewaySettings(env);
    let runtime = this.#runtimes.get(settings);
    if (!runtime) this.#runtimes.set(settings, (runtime = new RegionRuntime(this, env, settings)));
    return runtime;
  }
}
