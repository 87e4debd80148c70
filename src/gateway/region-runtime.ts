import type { Env } from "../env.ts";
import type { CounterAddress, Inspection, Limit } from "../core/limiter/index.ts";
import type { CompiledOverrides, Effective } from "../core/overrides/resolve.ts";
import type { RequestIdentities } from "../core/overrides/subject.ts";
import type { OverridesSnapshot } from "../core/overrides/types.ts";
import { IdentityDigests } from "../core/rules/identity-digests.ts";
import type { Rule } from "../core/rules/load.ts";
import type { Identity } from "../core/rules/request-facts.ts";
import { AdminThrottle, type Standing, type ThrottleAddress } from "./admin-throttle.ts";
import type { Clock } from "./clock.ts";
import { countedCounter, type CountedCounter } from "./counted-counter.ts";
import { Concurrency } from "./concurrency.ts";
import type { RuleTable } from "../core/rules/load.ts";
import { Counting, type AttributedVerdict } from "./counting.ts";
import type { Background } from "./execution-context.ts";
import { MetricsBuffer, metricsStore } from "./metrics-buffer.ts";
import { RequestMetrics } from "./metrics.ts";
import { inJurisdiction } from "./objects.ts";
import { OverridesCache, overridesStore } from "./overrides.ts";
import type { UpstreamName } from "./routes.ts";
import type { GatewaySettings, Upstream } from "./settings.ts";

/** What a region runtime takes of its isolate (src/gateway/isolate.ts): its clock, and the id its counter calls carry. */
export interface IsolateIdentity {
  readonly clock: Clock;
  /** How the counter objects know this runtime's counting: leases go to one caller (src/core/limiter/lease.ts). */
  readonly caller: string;
  /** The rule tables the gateway serves (a test's own included): their concurrency rows cap what is held open. */
  readonly tables?: Readonly<Record<UpstreamName, RuleTable>>;
}

/**
 * An isolate's memory for one region's checked settings and bindings, made once per settings by
 * `Isolate.runtime(env)`: the one composition root both the request path and the admin API work
 * with. It owns this isolate's counting (deny cache, leases, local fallback, coalesced calls), its
 * cache of the overrides, its metrics buffer and the admin throttle's local windows, and reaches
 * the region's objects in its jurisdiction and within COUNTER_TIMEOUT_MS (objects.ts,
 * deadline.ts), so no caller passes the settings or the bindings on. The request path reads it
 * from its context (`c.var.runtime`, src/gateway/app.ts); the admin API's routes receive it as
 * their one dependency (src/admin/types.ts, AdminDeps) instead of the request path's modules.
 *
 * @example
 * const runtime = isolate.runtime(env); // throws SettingError while the gateway is misconfigured
 * const verdict = await runtime.count(address, limit, { enforce: true, background });
 */
export class RegionRuntime {
  readonly settings: GatewaySettings;
  /** What the request path counts: decisions, counter failures, forwarded requests. */
  readonly metrics: RequestMetrics;
  /**
   * The slots of requests held open (WebSockets, streams) that a concurrency rule caps: one slots
   * object per (region, concurrency rule, identity), leases renewed while held (concurrency.ts,
   * `holdSlot`).
   */
  readonly concurrency: Concurrency;
  readonly #env: Env;
  readonly #clock: Clock;
  readonly #counting: Counting;
  readonly #overrides: OverridesCache;
  readonly #buffer: MetricsBuffer;
  readonly #adminThrottle: AdminThrottle;
  readonly #digests: IdentityDigests;

  constructor(env: Env, settings: GatewaySettings, isolate: IsolateIdentity) {
    const { clock } = isolate;
    this.#env = env;
    this.#clock = clock;
    this.settings = settings;
    this.#counting = new Counting(isolate.caller, clock);
    this.#overrides = new OverridesCache(clock, () => overridesStore(env, settings), settings);
    this.#buffer = new MetricsBuffer(clock, () => metricsStore(env, settings), settings.region);
    this.metrics = new RequestMetrics(this.#buffer, () => env.ANALYTICS, settings);
    // The throttle's counters live beside the rules' (their names never meet: src/admin/throttle.ts).
    this.#adminThrottle = new AdminThrottle(clock, () => inJurisdiction(env.COUNTERS, settings.jurisdiction), settings);
    this.#digests = new IdentityDigests(settings.hmacSecret);
    this.concurrency = new Concurrency({
      region: settings.region,
      failMode: settings.failMode,
      timeoutMs: settings.counterTimeoutMs,
      leaseMs: settings.slotLeaseMs,
      identitiesInTelemetry: settings.identitiesInTelemetry,
      clock,
      caller: isolate.caller,
      slots: (name) => inJurisdiction(env.SLOTS, settings.jurisdiction).getByName(name),
      ...(isolate.tables && { tables: isolate.tables }),
    });
  }

  /** The isolate's time (a test's driven clock). */
  now(): number {
    return this.#clock.now();
  }

  // The request path: whose counter, what the overrides make of a request, where it is counted, its count.

  /** The identity's digest under the region's IDENTITY_HMAC_SECRET, a returning caller's from this isolate's bounded cache (identity-digests.ts). */
  identityDigest(identity: Identity): string {
    return this.#digests.digest(identity);
  }

  /**
   * What the overrides make of a request on `rule`, as the request path decides it: at once (no
   * promise) in the common case, a copy that needs no read and names no identity (overrides.ts).
   * With `background` (the request's `waitUntil`), a copy past half its age is read again after
   * the response.
   */
  effectiveRule(rule: Rule, identities: RequestIdentities, background?: Background): Effective | Promise<Effective> {
    return this.#overrides.effectiveRule(rule, identities, background);
  }

  /** The counter a request on `rule` by the identity of `digest` is counted on under `effective` (counted-counter.ts). */
  countedCounter(rule: Rule, digest: string, effective: Parameters<typeof countedCounter>[3]): CountedCounter {
    return countedCounter(this.settings, rule, digest, effective);
  }

  /**
   * Counts one request on the counter at `address` under `limit` (Counting.count): its denials
   * remembered only when `enforce`d (a shadow rule keeps reaching its object), leases kept and
   * given back in `background`.
   *
   * @throws CounterUnavailable when the counter failed and the gateway fails closed.
   */
  count(
    address: CounterAddress,
    limit: Limit,
    options: { readonly enforce: boolean; readonly background: Background | undefined },
  ): Promise<AttributedVerdict> {
    const { jurisdiction, counterTimeoutMs, algorithm, failMode } = this.settings;
    return this.#counting.count(this.#env, {
      jurisdiction,
      address,
      limit,
      timeoutMs: counterTimeoutMs,
      cacheDenials: options.enforce,
      algorithm,
      failMode,
      background: options.background,
    });
  }

  /** Counter calls that failed in this isolate (each also logged). */
  get counterFailures(): number {
    return this.#counting.failures;
  }

  /** Counters this isolate decides on its own now, their objects failing (health). */
  get fallbackCounters(): number {
    return this.#counting.fallbackCounters;
  }

  /** Where the request path forwards to `name`: its service binding or its origin. */
  upstream(name: UpstreamName): Upstream {
    return this.settings.upstreams[name];
  }

  // The admin API: the overrides, the metrics totals, a counter's state, the throttle.

  /** The overrides in force in this isolate (its copy, read again when too old). */
  overrides(): Promise<CompiledOverrides> {
    return this.#overrides.current();
  }

  /** A change the admin API made (answered by the store at `snapshot`), applied by this isolate at once. */
  adoptOverrides(snapshot: OverridesSnapshot, startedAt: number): Promise<void> {
    return this.#overrides.adopt(snapshot, startedAt);
  }

  /** While the overrides store cannot be read: what this isolate enforces instead (health). */
  overridesOutage(): Promise<string | undefined> {
    return this.#overrides.outage();
  }

  /** The region's overrides store (the admin API's changes and audit log). */
  overridesStore() {
    return overridesStore(this.#env, this.settings);
  }

  /** The region's metrics totals, this isolate's own counts handed over first. */
  async metricsTotals() {
    await this.#buffer.flushAll();
    return metricsStore(this.#env, this.settings).totals();
  }

  /**
   * The counter a request on `rule` by the identity of `digest` is counted on under `effective`
   * (countedCounter, as the request path finds it), read by its object without counting,
   * recording or arming anything.
   */
  async inspectCounter(rule: Rule, digest: string, effective: Parameters<typeof countedCounter>[3]): Promise<{ counter: CounterAddress; state: Inspection }> {
    const { counter, limit } = this.countedCounter(rule, digest, effective);
    const state = await inJurisdiction(this.#env.COUNTERS, this.settings.jurisdiction).getByName(counter.object).inspect({ key: counter.key, limit });
    return { counter, state };
  }

  /** Records a failed admin authentication of the client at `address` (src/admin/throttle.ts). */
  recordAuthFailure(address: ThrottleAddress, allowance: Limit): Promise<Standing> {
    return this.#adminThrottle.recordFailure(address, allowance);
  }

  /** The standing of the client at `address`, counting nothing (a valid token). */
  authStanding(address: ThrottleAddress, allowance: Limit): Promise<Standing> {
    return this.#adminThrottle.standing(address, allowance);
  }
}
