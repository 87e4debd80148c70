import { Hono } from "hono";
import { gatewayConfig } from "../../gateway/config.ts";
import { operatingSettings } from "../settings.ts";
import type { AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/health` for load balancers: no token, never counted by any rule (the admin API
 * is mounted before the rate limiter), and nothing in it helps an attacker: no version, region,
 * rules or upstreams. 503 when the gateway is misconfigured, so a balancer stops sending it traffic.
 * 200 "degraded" while this isolate decides some counters on its own local windows (their objects
 * fail), with the bound that then holds: the counts are this isolate's, never an identity.
 */
export const healthRoutes = new Hono<AdminEnv>().get("/health", (c) => {
  let ok = true;
  try {
    gatewayConfig(c.env);
    operatingSettings(c.env);
  } catch {
    ok = false;
  }
  const headers = { "cache-control": "no-store" };
  if (!ok) return c.json({ status: "unavailable" }, 503, headers);
  const local = c.var.isolate.counting.fallbackCounters;
  if (local === 0) return c.json({ status: "ok" }, 200, headers);
  return c.json({ status: "degraded", detail: `${local} counters are decided by this isolate's local windows while their objects fail: each isolate admits at most count per window for each` }, 200, headers);
});
