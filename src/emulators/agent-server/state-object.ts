import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../env.ts";
import { AssistantStore } from "./assistants/store.ts";
import { RunStore } from "./runs/store.ts";
import { migrate, seedDefaultAssistants } from "./storage.ts";
import { ThreadStore } from "./threads/store.ts";

/**
 * All agent-server state (assistants and their versions, threads, runs) in one SQLite-backed
 * Durable Object, so concurrent writers are serialized and version numbers never gap or repeat.
 * Every store method is synchronous SQL (no await inside), so each call is one atomic step.
 * Callers reach a store with promise pipelining, one round trip: `using assistants =
 * assistantsOf(c.env); await assistants.patch(id, change)`.
 */
export class AgentServerState extends DurableObject<Env> {
  readonly #assistants: AssistantStore;
  readonly #threads: ThreadStore;
  readonly #runs: RunStore;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // Tables and default assistants exist before the first call is taken (the constructor is
    // synchronous, so no call can interleave).
    migrate(ctx.storage.sql);
    seedDefaultAssistants(ctx.storage.sql);
    this.#assistants = new AssistantStore(ctx.storage);
    this.#threads = new ThreadStore(ctx.storage);
    this.#runs = new RunStore(ctx.storage, this.#threads, this.#assistants);
  }

  assistants(): AssistantStore {
    return this.#assistants;
  }
  threads(): ThreadStore {
    return this.#threads;
  }
  runs(): RunStore {
    return this.#runs;
  }
}

/**
 * The state object. One per emulator: a deployment's assistants and threads are shared by every
 * caller of that deployment, as on the real server.
 */
export function stateOf(env: Pick<Env, "AGENT_SERVER_STATE">) {
  return env.AGENT_SERVER_STATE.getByName("agent-server");
}

// Each store, for pipelined calls. Declare them with `using`: the stub is disposed when the scope
// ends, not whenever the garbage collector gets to it (workerd warns about stubs collected that way).
export const assistantsOf = (env: Pick<Env, "AGENT_SERVER_STATE">) => stateOf(env).assistants();
export const threadsOf = (env: Pick<Env, "AGENT_SERVER_STATE">) => stateOf(env).threads();
export const runsOf = (env: Pick<Env, "AGENT_SERVER_STATE">) => stateOf(env).runs();
