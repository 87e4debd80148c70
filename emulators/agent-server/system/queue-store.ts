import { RpcTarget } from "cloudflare:workers";

/** How many runs wait and how many run, for GET /metrics. */
export interface QueueStats {
  readonly n_pending: number;
  readonly n_running: number;
}

/** What the system endpoints read from the state object: the run queue, and that it answers. */
export class QueueStore extends RpcTarget {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    super();
    this.#sql = sql;
  }

  /** Runs by status, as the real server's `/metrics` counts its queue. */
  stats(): QueueStats {
    const counts = new Map(
      this.#sql
        .exec<{ status: string; n: number }>("SELECT status, COUNT(*) AS n FROM runs WHERE status IN ('pending', 'running') GROUP BY status")
        .toArray()
        .map((row) => [row.status, row.n]),
    );
    return { n_pending: counts.get("pending") ?? 0, n_running: counts.get("running") ?? 0 };
  }

  /** `GET /ok?check_db=1`: the state object answers a query. */
  ping(): boolean {
    return this.#sql.exec<{ one: number }>("SELECT 1 AS one").one().one === 1;
  }
}
