import { DurableObject } from "cloudflare:workers";
import { DeploymentStore } from "./deployments/store.ts";
import type { ControlPlaneBindings } from "./env.ts";
import { ListenerStore } from "./listeners/store.ts";
import { OAuthStore } from "./oauth/store.ts";
import { TemplateStore } from "./templates/store.ts";
import { WorkspaceSettings } from "./workspace-settings.ts";
import type { ControlPlaneWorkspaceRpc } from "./workspace-rpc.ts";

/**
 * All control-plane state of one workspace, in one SQLite-backed Durable Object (named by the
 * workspace id), so workspaces are isolated by construction and concurrent writers to one
 * workspace are serialized by the object: no update is lost. Each resource kind is a store of its
 * own; callers reach it over RPC with promise pipelining, e.g.
 * `await workspace.listeners().create(input)` (one round trip).
 */
export class ControlPlaneWorkspace extends DurableObject<ControlPlaneBindings> implements ControlPlaneWorkspaceRpc {
  readonly #settings = new WorkspaceSettings(this.ctx.storage.sql);
  readonly #listeners = new ListenerStore(this.ctx, this.#settings);
  readonly #templates = new TemplateStore(this.ctx);
  readonly #deployments = new DeploymentStore(this.ctx, this.env.DEPLOYMENT_AGENT_SERVERS);
  readonly #oauth = new OAuthStore(this.ctx);

  settings(): WorkspaceSettings {
    return this.#settings;
  }
  listeners(): ListenerStore {
    return this.#listeners;
  }
  templates(): TemplateStore {
    return this.#templates;
  }
  deployments(): DeploymentStore {
    return this.#deployments;
  }
  oauth(): OAuthStore {
    return this.#oauth;
  }

  /**
   * Revisions walk their status sequence on alarms (see deployments/lifecycle.ts); an OAuth flow's
   * directory object (oauth/flow.ts) drops its expired record on its alarm.
   */
  override async alarm(): Promise<void> {
    this.#oauth.onAlarm();
    await this.#deployments.onAlarm();
  }
}
