// Pure: Cloudflare's published prices (Workers Standard, Durable Objects with SQLite storage), the
// one place the bench turns counted work into dollars. Sources and the date they were read are in
// docs/edge-cost.md; change both together.

/** Dollars per unit beyond the monthly allowance (the allowances are left out: per-million marginal cost). */
export const PRICES = {
  /** Workers Standard: per request and per CPU millisecond. */
  workerRequest: 0.3 / 1e6,
  workerCpuMs: 0.02 / 1e6,
  /** Durable Objects: per request (every RPC method call on a stub is one), per GB-second of duration. */
  objectRequest: 0.15 / 1e6,
  objectGbSecond: 12.5 / 1e6,
  /** SQLite-backed Durable Object storage. */
  rowRead: 0.001 / 1e6,
  rowWritten: 1.0 / 1e6,
  storageGbMonth: 0.2,
} as const;

/** Duration is billed on 128 MB per object, whatever it uses. */
export const OBJECT_GB = 128 / 1024;

/** What a run did, per client request. */
export interface WorkPerRequest {
  /** Worker invocations per client request (1: the gateway or the bare Worker itself). */
  readonly workerRequests: number;
  readonly cpuMs: number;
  readonly objectCalls: number;
  /** Seconds some object was active, per client request (docs/edge-cost.md: how it is derived). */
  readonly objectActiveSeconds: number;
  readonly rowsRead: number;
  readonly rowsWritten: number;
}

export interface Dollars {
  readonly workers: number;
  readonly objects: number;
  readonly rows: number;
  readonly total: number;
}

/** Dollars per million client requests, by part. Storage is left out: the counters hold a few rows per key. */
export function dollarsPerMillion(work: WorkPerRequest): Dollars {
  const m = 1e6;
  const workers = m * (work.workerRequests * PRICES.workerRequest + work.cpuMs * PRICES.workerCpuMs);
  const objects = m * (work.objectCalls * PRICES.objectRequest + work.objectActiveSeconds * OBJECT_GB * PRICES.objectGbSecond);
  const rows = m * (work.rowsRead * PRICES.rowRead + work.rowsWritten * PRICES.rowWritten);
  return { workers, objects, rows, total: workers + objects + rows };
}
