// The Durable Objects' RPC surfaces, as the environment types their namespaces. A leaf: the
// environment (env.ts) names these, not the object classes, so the classes (which read the
// environment) and the routes (which reach the objects through it) import in one direction only.
import type { AssistantStore } from "./assistants/store.ts";
import type { CronStore } from "./crons/cron-store.ts";
import type { ProtocolStore } from "./protocols/v2/store.ts";
import type { RunStore } from "./runs/store.ts";
import type { ItemStore } from "./store/item-store.ts";
import type { QueueStore } from "./system/queue-store.ts";
import type { ThreadQueries } from "./threads/search-store.ts";
import type { ThreadStateStore } from "./threads/state-store.ts";
import type { ThreadStore } from "./threads/store.ts";

/** What callers reach on a state object (state-object.ts implements it). */
export interface AgentServerStateRpc extends Rpc.DurableObjectBranded {
  assistants(): AssistantStore;
  threads(): ThreadStore;
  runs(): RunStore;
  threadState(): ThreadStateStore;
  threadQueries(): ThreadQueries;
  items(): ItemStore;
  crons(): CronStore;
  runQueue(): QueueStore;
  /** Protocol v2 over HTTP (its sockets are the object's own: `fetch` takes their upgrades). */
  protocol(): ProtocolStore;
  /** Empties a deleted deployment's object and resets it (the call ends with RETIRED). */
  retire(): Promise<void>;
}

/** What callers reach on the deployment registry (deployments/registry.ts implements it). */
export interface DeploymentRegistryRpc extends Rpc.DurableObjectBranded {
  provision(deploymentId: string, workspaceId: string, keyWorkspace?: string): void;
  deprovision(deploymentId: string): boolean;
  owner(deploymentId: string): string | null;
  keyWorkspace(workspaceId: string): string | null;
}
