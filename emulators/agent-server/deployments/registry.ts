import { DurableObject } from "cloudflare:workers";
import type { AgentServerBindings } from "../env.ts";
import type { DeploymentRegistryRpc } from "../state-rpc.ts";

/**
 * Which deployments have an agent server, and whose workspace owns each: one SQLite-backed object
 * for the emulator. It is asked before a deployment's own state object is touched, so a request
 * for an unknown or deleted deployment is a 404 that creates nothing (a state object, once
 * reached, makes its tables and seeds its assistants). Workspace ids are the control plane's
 * (UUIDs derived from a digest of the credential, never the credential).
 */
export class DeploymentRegistry extends DurableObject<AgentServerBindings> implements DeploymentRegistryRpc {
  constructor(ctx: DurableObjectState, env: AgentServerBindings) {
    super(ctx, env);
    ctx.storage.sql.exec(`CREATE TABLE IF NOT EXISTS deployments (
      id TEXT PRIMARY KEY,
      workspace_id TEXT NOT NULL,
      provisioned_at TEXT NOT NULL
    )`);
    // The key each workspace admits, by that key's own workspace id (the control plane's, sent with
    // each provisioning): the control plane's word, so the latest replaces what was there.
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS workspace_keys (workspace_id TEXT PRIMARY KEY, key_workspace TEXT NOT NULL)");
  }

  /** Records the deployment; a deployment already recorded keeps its first owner (ids are never reused). */
  provision(deploymentId: string, workspaceId: string, keyWorkspace?: string): void {
    if (keyWorkspace !== undefined) {
      this.ctx.storage.sql.exec(
        "INSERT INTO workspace_keys (workspace_id, key_workspace) VALUES (?, ?) ON CONFLICT (workspace_id) DO UPDATE SET key_workspace = excluded.key_workspace",
        workspaceId,
        keyWorkspace,
      );
    }
    this.ctx.storage.sql.exec(
      "INSERT INTO deployments (id, workspace_id, provisioned_at) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING",
      deploymentId,
      workspaceId,
      new Date().toISOString(),
    );
  }

  /** Forgets the deployment; whether it was recorded. */
  deprovision(deploymentId: string): boolean {
    return this.ctx.storage.sql.exec("DELETE FROM deployments WHERE id = ?", deploymentId).rowsWritten > 0;
  }

  /** The key a workspace admits besides its own (by that key's own workspace id), if the control plane named one. */
  keyWorkspace(workspaceId: string): string | null {
    return (
      this.ctx.storage.sql.exec<{ key_workspace: string }>("SELECT key_workspace FROM workspace_keys WHERE workspace_id = ?", workspaceId).toArray()[0]
        ?.key_workspace ?? null
    );
  }

  /** The workspace owning the deployment, or null when it has no agent server. */
  owner(deploymentId: string): string | null {
    return (
      this.ctx.storage.sql.exec<{ workspace_id: string }>("SELECT workspace_id FROM deployments WHERE id = ?", deploymentId).toArray()[0]?.workspace_id ?? null
    );
  }
}
