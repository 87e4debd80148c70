import { Hono } from "hono";
import { prometheusText } from "../metrics/prometheus.ts";
import type { AdminDeps, AdminEnv } from "../types.ts";

/**
 * `GET /_tollgate/metrics`: the region's totals (every isolate's, src/gateway/metrics.ts) in the
 * Prometheus text format. In production the same counts also reach Workers Analytics Engine.
 */
export const metricsRoutes = ({ runtime: runtimeOf }: Pick<AdminDeps, "runtime">) =>
  new Hono<AdminEnv>().get("/metrics", async (c) => {
    const runtime = runtimeOf(c.env);
    const totals = await runtime.metricsTotals();
    return c.text(prometheusText(runtime.settings.region, totals), 200, {
      "content-type": "text/plain; version=0.0.4; charset=utf-8",
      "cache-control": "no-store",
    });
  });
