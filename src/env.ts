import type { CounterObject } from "./durable-objects/counter-object.ts";
import type { OverridesStore } from "./durable-objects/overrides-store.ts";
import type { MetricsStore } from "./durable-objects/metrics-store.ts";
import type { SlotsObject } from "./durable-objects/slots-object.ts";
import type { SettingVars } from "./gateway/settings-schema.ts";

/**
 * Bindings and variables of one regional environment (wrangler.toml `[env.us]` / `[env.eu]`). The
 * variables and secrets come from the settings schema (src/gateway/settings-schema.ts), where each
 * is declared, checked and described once; the bindings are typed here (docs/configuration.md,
 * "Where a setting is declared", says why not with `wrangler types`). The emulators are Workers of
 * their own, each with its own environment type (emulators/<name>/env.ts).
 */
export interface Env extends SettingVars {
  /** The counter objects, in the jurisdiction COUNTER_JURISDICTION names. */
  COUNTERS: DurableObjectNamespace<CounterObject>;
  /** Runtime configuration (overrides and their audit log): one object per region. */
  OVERRIDES: DurableObjectNamespace<OverridesStore>;
  /** Metrics totals every isolate adds to: one object per region. */
  METRICS: DurableObjectNamespace<MetricsStore>;
  /** Concurrency slots: one object per (region, concurrency rule, identity digest), in the counters' jurisdiction. */
  SLOTS: DurableObjectNamespace<SlotsObject>;
  /**
   * Service bindings to the emulator Workers, added by the local runs only (docs/emulators.md);
   * an upstream uses its binding only when its `*_ORIGIN` variable says `service`.
   */
  HOSTED_API?: Fetcher;
  CONTROL_PLANE?: Fetcher;
  AGENT_SERVER?: Fetcher;
  /** Workers Analytics Engine dataset: one data point per decision and per upstream answer (production). */
  ANALYTICS?: AnalyticsEngineDataset;
}

type TollgateEnv = Env;
declare global {
  namespace Cloudflare {
    // Types `env` from "cloudflare:workers" and "cloudflare:test".
    interface Env extends TollgateEnv {}
  }
}
