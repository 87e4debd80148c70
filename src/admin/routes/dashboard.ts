import { Hono } from "hono";
import { GatewayError } from "../../http/gateway-error.ts";
import { effectiveTables } from "../../core/overrides/effective-table.ts";
import { dashboardData, SPANS_MS, type Span } from "../dashboard/data.ts";
import { dashboardPage } from "../dashboard/page.ts";
import type { AdminDeps, AdminEnv } from "../types.ts";

/** How often the page reads its data again. */
const REFRESH_MS = 5_000;

/** Audit entries the page lists. */
const AUDIT_SHOWN = 20;

/**
 * `GET /_tollgate/dashboard`: the page (Chart.js inlined, no network beyond this API), and
 * `GET /_tollgate/dashboard/data[?span=5m|1h]`: all it draws, in one answer, after this isolate's own counts
 * have been handed to the metrics object.
 */
export function dashboardRoutes({ tables, runtime: runtimeOf }: AdminDeps) {
  return new Hono<AdminEnv>()
    .get("/dashboard", (c) => {
      const refresh = Number(c.req.query("refresh"));
      const refreshMs = Number.isInteger(refresh) && refresh >= 500 && refresh <= 600_000 ? refresh : REFRESH_MS;
      return c.html(dashboardPage({ region: runtimeOf(c.env).settings.region, refreshMs }), 200, {
        "cache-control": "no-store",
        // Nothing but this page's own inline scripts, and requests to this origin.
        "content-security-policy":
          "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
      });
    })
    .get("/dashboard/data", async (c) => {
      // `span`: 5m or 1h; absent, the data chooses (the shortest that holds the traffic kept).
      const asked = c.req.query("span");
      if (asked !== undefined && !Object.hasOwn(SPANS_MS, asked)) {
        throw new GatewayError("validation", [{ loc: ["query", "span"], msg: `span must be one of ${Object.keys(SPANS_MS).join(", ")}`, type: "enum" }]);
      }
      const runtime = runtimeOf(c.env);
      const { settings } = runtime;
      const [totals, compiled, audit] = await Promise.all([runtime.metricsTotals(), runtime.overrides(), runtime.overridesStore().audit(AUDIT_SHOWN)]);
      const now = runtime.now();
      return c.json(
        dashboardData({
          region: settings.region,
          now,
          version: compiled.version,
          tables: effectiveTables(tables, compiled, settings.region, now),
          totals,
          overrides: compiled.overrides.filter((o) => o.expiresAt === undefined || now < o.expiresAt),
          audit,
          span: asked as Span | undefined,
        }),
        200,
        { "cache-control": "no-store" },
      );
    });
}
