// How many requests per second the target answers, measured before the plan is made, so every
// row can be paced by it (pacing.ts). Closed loop: `connections` lanes each send their next
// request when the last one is answered, for a few seconds after a short warm-up, every lane with
// identities of its own on the selection's busiest rows (so the answers are admissions, the dearer
// kind: each is counted and forwarded to the upstream).
import { Pool } from "undici";
import type { Rule } from "../../src/core/rules/load.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import { sampleRequest } from "../../src/core/rules/sample-request.ts";
import { tableOfRule } from "../../src/core/rules/tables.ts";
import { localPathFor } from "../../src/gateway/routes.ts";
import { benchmarkIp } from "./traffic.ts";

export interface Capacity {
  /** Answers per second over the measured seconds. */
  readonly rate: number;
  /** Median answer time, ms, at that rate with every lane busy. */
  readonly latencyP50Ms: number;
  readonly answered: number;
  readonly errors: number;
  readonly seconds: number;
}

export interface CapacityOptions {
  readonly baseUrl: URL;
  readonly region: Region;
  readonly rules: readonly Rule[];
  readonly connections: number;
  readonly runId: string;
  readonly warmUpMs?: number;
  readonly measureMs?: number;
  /** The client socket's local address (--source-ips). */
  readonly localAddress?: string;
}

/** The rows whose counts no lane can exhaust while measuring: the busiest of the selection. */
export function measuringRows(rules: readonly Rule[], region: Region): Rule[] {
  const busy = [...rules].sort((a, b) => b.limits[region].count / b.limits[region].interval - a.limits[region].count / a.limits[region].interval);
  return busy.slice(0, Math.max(1, Math.min(4, busy.filter((r) => r.limits[region].count >= 1000).length)));
}

export async function measureCapacity(o: CapacityOptions): Promise<Capacity> {
  const rows = measuringRows(o.rules, o.region);
  const requests = rows.map((rule) => {
    const own = sampleRequest(rule);
    return { rule, method: own.method, path: o.baseUrl.pathname.replace(/\/+$/, "") + localPathFor(tableOfRule(rule.id) ?? "hosted-api", own.path) };
  });
  const pool = new Pool(o.baseUrl.origin, {
    connections: o.connections,
    headersTimeout: 30_000,
    bodyTimeout: 30_000,
    ...(o.localAddress ? { localAddress: o.localAddress } : {}),
  });
  const warmUpMs = o.warmUpMs ?? 1000;
  const measureMs = o.measureMs ?? 3000;
  const t0 = performance.now();
  const latencies: number[] = [];
  let answered = 0;
  let errors = 0;
  const lane = async (n: number) => {
    for (let i = 0; performance.now() - t0 < warmUpMs + measureMs; i++) {
      const r = requests[(n + i) % requests.length]!;
      const headers: Record<string, string> = {
        "user-agent": "tollgate-loadtest",
        "x-api-key": `lt-${o.runId}-capacity-${n}`,
        "x-user-id": `lt-${o.runId}-capacity-${n}`,
        "cf-connecting-ip": benchmarkIp(120_000 + n),
      };
      const sent = performance.now();
      let ok = false;
      try {
        const res = await pool.request({ method: r.method, path: r.path, headers });
        await res.body.dump();
        ok = res.statusCode < 500;
      } catch {
        ok = false;
      }
      const at = performance.now();
      if (sent - t0 >= warmUpMs) {
        answered++;
        if (!ok) errors++;
        latencies.push(at - sent);
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: o.connections }, (_, n) => lane(n)));
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - t0 - warmUpMs) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rate: Math.round((answered - errors) / seconds),
    latencyP50Ms: Math.round(latencies[Math.floor(latencies.length / 2)] ?? 0),
    answered,
    errors,
    seconds: Math.round(seconds * 10) / 10,
  };
}
