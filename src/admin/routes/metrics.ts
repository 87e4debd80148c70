import { Hono } from "hono";
import { gatewaySettings } from "../../gateway/settings.ts";
import { flushAll, metricsStore } from "../../gateway/metrics-buffer.ts";
import { prometheusText } from "../metrics/prometheus.ts";
import type { AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/metrics`: the region's totals (every isolate's, src/gateway/metrics.ts) in the
 * Prometheus text format. In production the same counts also reach Workers Analytics Engine.
 */
export const metricsRoutes = new Hono<AdminEnv>().get("/metrics", async (c) => {
  const settings = gatewaySettings(c.env);
  await flushAll(c.var.isolate.metrics, c.env, settings);
  const totals = await metricsStore(c.env, settings).totals();
  return c.text(prometheusText(settings.region, totals), 200, { "content-type": "text/plain; version=0.0.4; charset=utf-8", "cache-control": "no-store" });
});
