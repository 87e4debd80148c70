import type { CompiledOverrides } from "../core/overrides/resolve.ts";
import type { GatewaySettings } from "./settings.ts";

/** One copy of a region's overrides, as an isolate keeps it (src/gateway/overrides.ts reads and refreshes it). */
export interface Copy {
  compiled: CompiledOverrides;
  /** When the read that produced it started (epoch ms by the isolate's clock; the writer's for a data center copy). */
  readAt: number;
  /** Not before this time is the object asked again. */
  nextReadAt: number;
  /** A request of this isolate is reading the configuration now. */
  reading: boolean;
  failing: boolean;
  /** Where the copy came from: the object itself, or the data center's copy of an earlier read. */
  from: "object" | "data-center";
  /** The copy was found too old to enforce (logged once per outage). */
  expired: boolean;
}

/** An isolate's copies of the overrides (src/gateway/isolate.ts), by OVERRIDES binding and region. */
export class OverrideCopies {
  readonly copies = new WeakMap<object, Map<string, Copy>>();
  /** The copy each configuration uses (a configuration belongs to one env, so to one OVERRIDES binding). */
  readonly ofSettings = new WeakMap<GatewaySettings, Copy>();
}

