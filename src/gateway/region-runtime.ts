import type { Env } from "../env.ts";
import type { CounterAddress, Inspection, Limit } from "../core/limiter/index.ts";
import type { CompiledOverrides, Effective } from "../core/overrides/resolve.ts";
import type { RequestIdentities } from "../core/overrides/subject.ts";
import type { OverridesSnapshot } from "../core/overrides/types.ts";
import type { Rule } from "../core/rules/load.ts";
import type { AdminThrottle, Standing, ThrottleAddress } from "./admin-throttle.ts";
import type { Clock } from "./clock.ts";
import { countedCounter } from "./counted-counter.ts";
import type { Counting } from "./counting.ts";
import { metricsStore, type MetricsBuffer } from "./metrics-buffer.ts";
import { inJurisdiction } from "./objects.ts";
import { overridesStore, type OverridesCache } from "./overrides.ts";
import type { GatewaySettings } from "./settings.ts";

/** What an isolate keeps that its region runtime works with (src/gateway/isolate.ts). */
export interface IsolateParts {
  readonly clock: Clock;
  readonly counting: Counting;
  readonly overrides: OverridesCache;
  readonly metrics: MetricsBuffer;
  readonly adminThrottle: AdminThrottle;
}

/**
 * One isolate's memory for one region's checked settings and bindings: what the admin API works
 * with, as its routes' one dependency (src/admin/types.ts, AdminDeps), instead of reaching into
 * the request path's modules. Made once per settings by `Isolate.runtime(env)`. Every call reaches
 * the region's objects in its jurisdiction and within COUNTER_TIMEOUT_MS where the request path
 * does, through the same code.
 *
 * @example
 * const runtime = isolate.runtime(env); // throws SettingError while the gateway is misconfigured
 * const compiled = await runtime.overrides();
 */
export class RegionRuntime {
  readonly settings: GatewaySettings;
  readonly #env: Env;
  readonly #parts: IsolateParts;

  constructor(parts: IsolateParts, env: Env, settings: GatewaySettings) {
    this.#parts = parts;
    this.#env = env;
    this.settings = settings;
  }

  /** The isolate's time (a test's driven clock). */
  now(): number {
    return this.#parts.clock.now();
  }

  /** The overrides in force in this isolate (its copy, read again when too old). */
  overrides(): Promise<CompiledOverrides> {
    return this.#parts.overrides.current(this.#env, this.settings);
  }

  /** What the overrides make of a request on `rule`, as the request path decides it. */
  async effectiveRule(rule: Rule, identities: RequestIdentities): Promise<Effective> {
    return this.#parts.overrides.effectiveRule(this.#env, this.settings, rule, identities);
  }

  /** A change the admin API made (answered by the store at `snapshot`), applied by this isolate at once. */
  adoptOverrides(snapshot: OverridesSnapshot, startedAt: number): Promise<void> {
    return this.#parts.overrides.adopt(this.#env, this.settings, snapshot, startedAt);
  }

  /** While the overrides store cannot be read: what this isolate enforces instead (health). */
  overridesOutage(): Promise<string | undefined> {
    return this.#parts.overrides.outage(this.#env, this.settings);
  }

  /** The region's overrides store (the admin API's changes and audit log). */
  overridesStore() {
    return overridesStore(this.#env, this.settings);
  }

  /** The region's metrics totals, this isolate's own counts handed over first. */
  async metricsTotals() {
    await this.#parts.metrics.flushAll(this.#env, this.settings);
    return metricsStore(this.#env, this.settings).totals();
  }

  /** Counters this isolate decides on its own now, their objects failing (health). */
  get fallbackCounters(): number {
    return this.#parts.counting.fallbackCounters;
  }

  /**
   * The counter a request on `rule` by the identity of `digest` is counted on under `effective`
   * (countedCounter, as the request path finds it), read by its object without counting,
   * recording or arming anything.
   */
  async inspectCounter(rule: Rule, digest: string, effective: Parameters<typeof countedCounter>[3]): Promise<{ counter: CounterAddress; state: Inspection }> {
    const { counter, limit } = countedCounter(this.settings, rule, digest, effective);
    const state = await inJurisdiction(this.#env.COUNTERS, this.settings.jurisdiction).getByName(counter.object).inspect({ key: counter.key, limit });
    return { counter, state };
  }

  /** Records a failed admin authentication of the client at `address` (src/admin/throttle.ts). */
  recordAuthFailure(address: ThrottleAddress, allowance: Limit): Promise<Standing> {
    return this.#parts.adminThrottle.recordFailure(this.#env, this.settings, address, allowance);
  }

  /** The standing of the client at `address`, counting nothing (a valid token). */
  authStanding(address: ThrottleAddress, allowance: Limit): Promise<Standing> {
    return this.#parts.adminThrottle.standing(this.#env, this.settings, address, allowance);
  }
}
