import { RpcTarget } from "cloudflare:workers";
import { defaultPlanFor, PLANS, type Plan } from "./plans.ts";

/** The workspace's own record: its id and its plan (which decides whether listeners are allowed). */
export class WorkspaceSettings extends RpcTarget {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    super();
    this.#sql = sql;
    sql.exec(`CREATE TABLE IF NOT EXISTS workspace (
      id TEXT PRIMARY KEY,
      plan TEXT NOT NULL,
      created_at TEXT NOT NULL
    )`);
  }

  /** The workspace record, created with its default (or seeded) plan on first use. */
  get(workspaceId: string): { id: string; plan: Plan; created_at: string } {
    const row = this.#sql.exec<{ id: string; plan: string; created_at: string }>("SELECT id, plan, created_at FROM workspace LIMIT 1").toArray()[0];
    if (row) return { id: row.id, plan: row.plan as Plan, created_at: row.created_at };
    const created = { id: workspaceId, plan: defaultPlanFor(workspaceId), created_at: new Date().toISOString() };
    this.#sql.exec("INSERT INTO workspace (id, plan, created_at) VALUES (?, ?, ?)", created.id, created.plan, created.created_at);
    return created;
  }

  setPlan(workspaceId: string, plan: Plan): { id: string; plan: Plan; created_at: string } {
    if (!PLANS.includes(plan)) throw new Error(`unknown plan ${plan}`);
    const current = this.get(workspaceId);
    this.#sql.exec("UPDATE workspace SET plan = ?", plan);
    return { ...current, plan };
  }
}
