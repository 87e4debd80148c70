// The workspace object's RPC surface, as the environment types its namespace. A leaf: env.ts names
// this, not the class (which reads the environment), so the two import in one direction only.
import type { DeploymentStore } from "./deployments/store.ts";
import type { ListenerStore } from "./listeners/store.ts";
import type { OAuthStore } from "./oauth/store.ts";
import type { TemplateStore } from "./templates/store.ts";
import type { WorkspaceSettings } from "./workspace-settings.ts";

/** What callers reach on a workspace object (workspace-object.ts implements it). */
export interface ControlPlaneWorkspaceRpc extends Rpc.DurableObjectBranded {
  settings(): WorkspaceSettings;
  listeners(): ListenerStore;
  templates(): TemplateStore;
  deployments(): DeploymentStore;
  oauth(): OAuthStore;
}
