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
    // The key that may use this workspace, named by its own default workspace id (a digest of the
    // key, never the key): one row at most.
    sql.exec("CREATE TABLE IF NOT EXISTS workspace_key (key_workspace TEXT NOT NULL)");
  }

  /**
   * Whether the key whose own workspace is `keyWorkspace` may use this one. A key always may use
   * its own (and takes it back from a key that chose it first); another workspace is the first
   * choosing key's, and refused to every other key. The hosted service has an organization's keys
   * share its workspaces; the emulator has no organizations, so a workspace has one key.
   */
  admit(keyWorkspace: string, own: boolean): boolean {
    const current = this.keyWorkspace();
    if (current === keyWorkspace) return true;
    if (own || current === undefined) {
      this.#sql.exec("DELETE FROM workspace_key");
      this.#sql.exec("INSERT INTO workspace_key (key_workspace) VALUES (?)", keyWorkspace);
      return true;
    }
    return false;
  }

  /** The key that may use this workspace (its own workspace id), once one has. */
  keyWorkspace(): string | undefined {
    return this.#sql.exec<{ key_workspace: string }>("SELECT key_workspace FROM workspace_key LIMIT 1").toArray()[0]?.key_workspace;
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
