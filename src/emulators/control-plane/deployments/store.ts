import { RpcTarget } from "cloudflare:workers";
import type { Env } from "../../../env.ts";

/** Deployments and revisions of one workspace (to be implemented). */
export class DeploymentStore extends RpcTarget {
  readonly #ctx: DurableObjectState;
  readonly #env: Env;
  constructor(ctx: DurableObjectState, env: Env) {
    super();
    this.#ctx = ctx;
    this.#env = env;
  }
  ping(): string {
    return `deployments of ${this.#ctx.id.toString().slice(0, 8)} ${typeof this.#env}`;
  }
  async onAlarm(): Promise<void> {}
}
