/**
 * Each deployment's agent server, from the control plane's side: where it answers (recorded when
 * the deployment is created), and whether the agent-server emulator has been told to serve it.
 * The agent-server emulator is told over the workspace object's service binding
 * (../../shared/deployment-provisioning.ts) when a revision of the deployment has deployed, and
 * told to drop it once the deployment is gone, however it went (DELETE, bulk delete): `sync`
 * compares this table with the deployments table rather than relying on each path to call it.
 * docs/deployment-agent-servers.md.
 */
import type { DeploymentProvisioning } from "../../shared/deployment-provisioning.ts";
import type { Source, SourceConfig } from "./model.ts";

/** The placeholder of DEPLOYMENT_URL_TEMPLATE (and of the default template) for the deployment's id. */
export const DEPLOYMENT_ID_PLACEHOLDER = "{deployment_id}";

export class AgentServers {
  readonly #sql: SqlStorage;
  readonly #provisioning: DeploymentProvisioning | undefined;
  /** One sync at a time: a provision still in flight must land before a later deprovision of the same deployment. */
  #syncing: Promise<void> = Promise.resolve();

  constructor(sql: SqlStorage, provisioning: DeploymentProvisioning | undefined) {
    this.#sql = sql;
    this.#provisioning = provisioning;
    sql.exec(`CREATE TABLE IF NOT EXISTS deployment_agent_servers (
      deployment_id TEXT PRIMARY KEY,
      url TEXT NOT NULL,
      provisioned INTEGER NOT NULL DEFAULT 0
    )`);
  }

  /**
   * Records where a new deployment's agent server will answer (`template` with its id), inside
   * the creating transaction. Without the binding (a control plane deployed alone) or a template
   * there is no agent server to give: nothing is recorded, and `custom_url` stays null.
   */
  plan(deploymentId: string, template: string | null): void {
    if (!this.#provisioning || template === null) return;
    this.#sql.exec(
      "INSERT INTO deployment_agent_servers (deployment_id, url) VALUES (?, ?) ON CONFLICT (deployment_id) DO NOTHING",
      deploymentId,
      template.replaceAll(DEPLOYMENT_ID_PLACEHOLDER, deploymentId),
    );
  }

  /**
   * Provisions every deployment with a deployed revision and no agent server yet, and
   * deprovisions every agent server whose deployment is gone. A call that fails (the agent-server
   * Worker unreachable) is logged and left for the next sync: every call of the deployment store
   * that changes or reads deployments syncs first.
   */
  sync(): Promise<void> {
    const next = this.#syncing.then(() => this.#syncOnce());
    this.#syncing = next.catch(() => undefined);
    return next;
  }

  async #syncOnce(): Promise<void> {
    const provisioning = this.#provisioning;
    if (!provisioning) return;
    const wanted = this.#sql
      .exec<{ deployment_id: string; tenant_id: string }>(
        `SELECT a.deployment_id, d.tenant_id FROM deployment_agent_servers a JOIN deployments d ON d.id = a.deployment_id
         WHERE a.provisioned = 0 AND d.active_revision_id IS NOT NULL`,
      )
      .toArray();
    // The key this workspace admits (workspace-settings.ts): its agent servers admit the same one.
    const keyWorkspace = this.#sql.exec<{ key_workspace: string }>("SELECT key_workspace FROM workspace_key LIMIT 1").toArray()[0]?.key_workspace;
    for (const { deployment_id, tenant_id } of wanted) {
      await attempt("provision", deployment_id, async () => {
        await provisioning.provision(deployment_id, tenant_id, keyWorkspace);
        this.#sql.exec("UPDATE deployment_agent_servers SET provisioned = 1 WHERE deployment_id = ?", deployment_id);
      });
    }
    const gone = this.#sql
      .exec<{ deployment_id: string }>(
        `SELECT a.deployment_id FROM deployment_agent_servers a LEFT JOIN deployments d ON d.id = a.deployment_id WHERE d.id IS NULL`,
      )
      .toArray();
    for (const { deployment_id } of gone) {
      await attempt("deprovision", deployment_id, async () => {
        await provisioning.deprovision(deployment_id);
        this.#sql.exec("DELETE FROM deployment_agent_servers WHERE deployment_id = ?", deployment_id);
      });
    }
  }

  /**
   * `patch` without the `custom_url` a `github` deployment was answered with (read only): a client
   * that read the deployment and sends its `source_config` back sends it, as it sends the secrets'
   * mask. Any other value is left for the PATCH rules to refuse.
   */
  withoutReadOnlyUrl<P extends { source_config?: { custom_url?: string | null } | null }>(deploymentId: string, source: Source, patch: P): P {
    const sent = patch.source_config?.custom_url;
    if (source !== "github" || sent == null) return patch;
    const reported = this.#sql
      .exec<{ url: string }>("SELECT url FROM deployment_agent_servers WHERE deployment_id = ? AND provisioned = 1", deploymentId)
      .toArray()[0]?.url;
    return sent === reported ? { ...patch, source_config: { ...patch.source_config, custom_url: null } } : patch;
  }

  /** Whether a sync has anything to do (so reads that changed nothing skip it). */
  pending(): boolean {
    if (!this.#provisioning) return false;
    return (
      this.#sql
        .exec(
          `SELECT 1 FROM deployment_agent_servers a LEFT JOIN deployments d ON d.id = a.deployment_id
           WHERE d.id IS NULL OR (a.provisioned = 0 AND d.active_revision_id IS NOT NULL) LIMIT 1`,
        )
        .toArray().length > 0
    );
  }
}

async function attempt(action: string, deploymentId: string, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    console.log(JSON.stringify({ event: "control_plane_agent_server_error", action, deployment_id: deploymentId, error: String(error) }));
  }
}

/**
 * The `source_config` a deployment is answered with: for `github`, `custom_url` is the URL of its
 * agent server once one serves it ("set automatically for github source deployments (read
 * only)", reference SourceConfig), null before; `external_docker` keeps the URL its owner set;
 * the internal sources, for which the reference sets none, answer null (their agent server
 * answers at the same kind of URL all the same: docs/deployment-agent-servers.md).
 */
export function reportedSourceConfig(source: Source, stored: SourceConfig, agentServerUrl: string | null | undefined): SourceConfig {
  return source === "github" ? { ...stored, custom_url: agentServerUrl ?? null } : stored;
}
