import type { Env } from "../env.ts";
import type { RuleTable } from "../core/rules/load.ts";
import type { UpstreamName } from "./routes.ts";
import { systemClock, type Clock } from "./clock.ts";
import { RegionRuntime } from "./region-runtime.ts";
import { gatewaySettings, type GatewaySettings } from "./settings.ts";

/**
 * One Worker instance's memory between requests: its clock, its id, and its region runtime
 * (src/gateway/region-runtime.ts), which holds everything else it keeps (counting, the overrides
 * cache, the metrics buffer, the admin throttle's local windows). One per gateway (createGateway),
 * so a test can run several gateways in one runtime, each an isolate of its own, and drive their
 * time (docs/counting.md).
 *
 * @example
 * const isolate = new Isolate({ clock: { now: () => t } });
 * const runtime = isolate.runtime(env);
 */
export class Isolate {
  readonly clock: Clock;
  #id: string | undefined;
  readonly #runtimes = new WeakMap<GatewaySettings, RegionRuntime>();
  /** The runtime of the last request: in a warm isolate, every request's. */
  #last: RegionRuntime | undefined;
  #made = 0;

  readonly #tables: Readonly<Record<UpstreamName, RuleTable>> | undefined;

  /**
   * @param options.id how the counter objects know this isolate (random by default)
   * @param options.tables the rule tables the gateway serves, when not the published ones
   */
  constructor(options: { clock?: Clock; id?: string; tables?: Readonly<Record<UpstreamName, RuleTable>> } = {}) {
    this.clock = options.clock ?? systemClock;
    this.#id = options.id;
    this.#tables = options.tables;
  }

  /**
   * This isolate's id, sent with its counter calls: leases go only to an isolate that calls a
   * counter alone (src/core/limiter/lease.ts). Made on first use, inside a request: Workers refuse
   * random values while a module is loading.
   */
  get id(): string {
    return (this.#id ??= crypto.randomUUID());
  }

  /**
   * This isolate's runtime for the region `env` configures, made once per checked settings (an
   * isolate's env is stable, so in production there is one; a test that serves one gateway
   * several envs gets a runtime, with a caller id of its own, for each).
   *
   * @throws SettingError while the gateway is misconfigured (gatewaySettings).
   */
  runtime(env: Env): RegionRuntime {
    const settings = gatewaySettings(env);
    const last = this.#last;
    if (last?.settings === settings) return last;
    let runtime = this.#runtimes.get(settings);
    if (!runtime) {
      const caller = this.#made++ === 0 ? this.id : `${this.id}.${this.#made}`;
      this.#runtimes.set(settings, (runtime = new RegionRuntime(env, settings, { clock: this.clock, caller, ...(this.#tables && { tables: this.#tables }) })));
    }
    return (this.#last = runtime);
  }
}
