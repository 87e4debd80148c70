import type { QueueStats } from "./queue-store.ts";

/** The Prometheus text format's content type, as prometheus_client serves it. */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

/**
 * GET /metrics in the Prometheus exposition format: the run queue gauges the real server exports
 * (`lg_api_num_pending_runs`, `lg_api_num_running_runs`).
 */
export function prometheusMetrics(queue: QueueStats): string {
  const gauge = (name: string, help: string, value: number) => `# HELP ${name} ${help}\n# TYPE ${name} gauge\n${name} ${value}\n`;
  return (
    gauge("lg_api_num_pending_runs", "The number of runs currently pending.", queue.n_pending) +
    gauge("lg_api_num_running_runs", "The number of runs currently running.", queue.n_running)
  );
}

/** GET /metrics?format=json: the queue, as the real server's JSON snapshot names it. */
export function jsonMetrics(queue: QueueStats) {
  return { queue: { ...queue, max_age_secs: null, med_age_secs: null } };
}
