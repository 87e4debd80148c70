// How requests reach the agent server's Durable Objects: the state object of the environment's
// deployment (or the shared one), each of its stores, and the deployment registry.
import type { AgentServerBindings } from "./env.ts";

const DEPLOYMENT_OBJECT = "deployment:";

/** Why a retired deployment's object resets (the error its `retire` call ends with). */
export const RETIRED = "deployment deleted: its agent server's state was removed";

/** The name of a deployment's own state object (docs/deployment-agent-servers.md). */
export const deploymentObjectName = (deploymentId: string) => `${DEPLOYMENT_OBJECT}${deploymentId}`;

/** The deployment a state object belongs to, from its name; undefined for the shared one. */
export function deploymentOfObject(name: string | undefined): string | undefined {
  return name?.startsWith(DEPLOYMENT_OBJECT) ? name.slice(DEPLOYMENT_OBJECT.length) : undefined;
}

type StateBindings = Pick<AgentServerBindings, "AGENT_SERVER_STATE" | "deploymentId">;

/**
 * The state object: the shared agent server's (one per emulator), or the deployment's own when
 * the environment names one (`deploymentId`, set by deployments/router.ts). A deployment's
 * assistants and threads are shared by every caller of that deployment, as on the real server.
 */
export function stateOf(env: StateBindings) {
  return env.AGENT_SERVER_STATE.getByName(env.deploymentId === undefined ? "agent-server" : deploymentObjectName(env.deploymentId));
}

// Each store, for pipelined calls. Declare them with `using`: the stub is disposed when the scope
// ends, not whenever the garbage collector gets to it (workerd warns about stubs collected that way).
export const assistantsOf = (env: StateBindings) => stateOf(env).assistants();
export const threadsOf = (env: StateBindings) => stateOf(env).threads();
export const runsOf = (env: StateBindings) => stateOf(env).runs();
export const threadStateOf = (env: StateBindings) => stateOf(env).threadState();
export const threadQueriesOf = (env: StateBindings) => stateOf(env).threadQueries();
export const itemsOf = (env: StateBindings) => stateOf(env).items();
export const cronsOf = (env: StateBindings) => stateOf(env).crons();
export const runQueueOf = (env: StateBindings) => stateOf(env).runQueue();
export const protocolOf = (env: StateBindings) => stateOf(env).protocol();

/** The registry object. */
export const registryOf = (env: Pick<AgentServerBindings, "AGENT_SERVER_DEPLOYMENTS">) => env.AGENT_SERVER_DEPLOYMENTS.getByName("deployments");
