import { Hono } from "hono";
import { SettingError } from "../../http/setting-error.ts";
import { adminHostsOf } from "../hosts.ts";

import type { RegionRuntime } from "../../gateway/runtime.ts";
import type { AdminDeps, AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/health` for load balancers and the deploy's probe, on the admin hosts like the
 * rest of the admin API: no token (a probe holds no secret, and the answer gives none away), no
 * throttle, never counted by any rule (the admin API is mounted before the rate limiter), and
 * nothing in it helps an attacker: no version, region, rules or upstreams. 503 when the gateway is misconfigured or a required secret is missing, so a
 * balancer stops sending it traffic, with the setting to fix named.
 * 200 "degraded" while this isolate decides some counters on its own local windows (their objects
 * fail), with the bound that then holds: the counts are this isolate's, never an identity; and
 * while the overrides store cannot be read, saying which overrides are enforced instead.
 */
export const healthRoutes = ({ runtime: runtimeOf }: Pick<AdminDeps, "runtime">) =>
  new Hono<AdminEnv>().get("/health", async (c) => {
    let unavailable: string | undefined;
    let runtime: RegionRuntime | undefined;
    try {
      runtime = runtimeOf(c.env);
      // An admin host that is also an upstream's: the deploy's probe must stop the rollout.
      const { mistake } = adminHostsOf(c.env);
      if (mistake) throw mistake;
    } catch (error) {
      // The operator's next step: which setting is missing or wrong (a secret's name, never its value).
      unavailable = error instanceof SettingError ? error.message : "the gateway's configuration could not be read";
    }
    const headers = { "cache-control": "no-store" };
    if (unavailable !== undefined || !runtime) return c.json({ status: "unavailable", detail: unavailable }, 503, headers);
    const local = runtime.fallbackCounters;
    // The overrides' outage (src/gateway/overrides.ts): what this isolate enforces instead.
    const outage = await runtime.overridesOutage();
    const details = [
      ...(local > 0
        ? [`${local} counters are decided by this isolate's local windows while their objects fail: each isolate admits at most count per window for each`]
        : []),
      ...(outage ? [outage] : []),
    ];
    if (details.length === 0) return c.json({ status: "ok" }, 200, headers);
    return c.json({ status: "degraded", detail: details.join("; ") }, 200, headers);
  });
