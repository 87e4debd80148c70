// Pure data: the requests the traffic shapes send, by published row. Shared by the shapes (Node)
// and the hono-rate-limiter peer fixture (Worker), so the peer limits exactly the routes the bench
// drives, with the same rows' limits, and neither can drift from the other.

/** One route the bench drives, and the published row the gateway must count it on. */
export interface BenchRoute {
  readonly method: "GET" | "POST";
  readonly path: string;
  /** The row of rules/hosted-api.json this request meets (checked against the gateway's own header at start). */
  readonly row: number;
}

export const ROUTES = {
  /** Row 16 "commits-key", 10000/60 s per API key: room for every warm pass on the same keys. */
  newKeys: { method: "GET", path: "/commits/acme/agent", row: 16 },
  /** Row 11 "runs-multipart-key", 6000/10 s per API key. */
  oneKey: { method: "POST", path: "/runs/multipart", row: 11 },
  /** Row 14 "generate-key", 30/3600 s: once exhausted it stays exhausted for the whole run. */
  denyFlood: { method: "GET", path: "/generate/draft", row: 14 },
  /** No identity header: row 29 "public-ip", 100/60 s per client IP. */
  newIps: { method: "GET", path: "/datasets", row: 29 },
  /** Row 12 "runs-query-key", 15/10 s per API key: small, so 10x its count is a short burst. */
  hotKey: { method: "POST", path: "/runs/query", row: 12 },
} as const satisfies Record<string, BenchRoute>;

export type RouteName = keyof typeof ROUTES;
