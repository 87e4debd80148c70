import { Hono } from "hono";
import { gatewayConfig } from "../../gateway/config.ts";
import { operatingSettings } from "../settings.ts";
import type { AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/health` for load balancers: no token, never counted by any rule (the admin API
 * is mounted before the rate limiter), and nothing in it helps an attacker: no version, region,
 * rules or upstreams. 503 when the gateway is misconfigured, so a balancer stops sending it traffic.
 */
export const healthRoutes = new Hono<AdminEnv>().get("/health", (c) => {
  let ok = true;
  try {
    gatewayConfig(c.env);
    operatingSettings(c.env);
  } catch {
    ok = false;
  }
  return c.json({ status: ok ? "ok" : "unavailable" }, ok ? 200 : 503, { "cache-control": "no-store" });
});
