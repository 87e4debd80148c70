// The health probe between rollout steps: GET the admin host's /_tollgate/health until it answers
// 200 {"status":"ok"} or the tries run out.

/** How one probe is made. */
export interface ProbeRequest {
  readonly url: string;
  /** Sent as `Authorization: Bearer`, for an admin host that wants a token even for health. */
  readonly token: string | undefined;
  /**
   * Pins the request to this version of `worker` (Cloudflare-Workers-Version-Overrides), so a
   * step that gives the new version 10% of traffic still probes the new version, not the old.
   */
  readonly pin: { readonly worker: string; readonly versionId: string } | undefined;
  readonly attempts: number;
  readonly intervalMs: number;
}

/** A probe's verdict and what the last answer said. */
export interface ProbeResult {
  readonly healthy: boolean;
  readonly detail: string;
}

const TIMEOUT_MS = 10_000;

/**
 * Healthy when an attempt answers 200 with `"status":"ok"`. "degraded" (counters decided on local
 * windows because their objects fail) and anything else count as unhealthy: a new version that
 * cannot reach its counters is not one to roll forward.
 */
export async function probe(request: ProbeRequest, sleep: (ms: number) => Promise<void>): Promise<ProbeResult> {
  const headers: Record<string, string> = { accept: "application/json", "cache-control": "no-store" };
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  if (request.pin) headers["cloudflare-workers-version-overrides"] = `${request.pin.worker}="${request.pin.versionId}"`;
  let detail = "";
  for (let attempt = 1; attempt <= request.attempts; attempt++) {
    if (attempt > 1) await sleep(request.intervalMs);
    try {
      const res = await fetch(request.url, { headers, redirect: "manual", signal: AbortSignal.timeout(TIMEOUT_MS) });
      const body = await res.text();
      let status: unknown;
      try {
        status = (JSON.parse(body) as { status?: unknown }).status;
      } catch {
        status = undefined;
      }
      if (res.status === 200 && status === "ok") return { healthy: true, detail: `200 ${body.trim()}` };
      detail = `${res.status} ${body.trim().slice(0, 300) || "(no body)"}`;
    } catch (error) {
      detail = `no answer (${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message})`;
    }
  }
  return { healthy: false, detail: `${detail} after ${request.attempts} tries` };
}

/** The admin host's health URL. */
export const healthUrl = (adminHost: string) => `https://${adminHost}/_tollgate/health`;
