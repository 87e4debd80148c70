import { RpcTarget } from "cloudflare:workers";

/** Sandbox templates of one workspace (to be implemented). */
export class TemplateStore extends RpcTarget {
  readonly #ctx: DurableObjectState;
  constructor(ctx: DurableObjectState) {
    super();
    this.#ctx = ctx;
  }
  ping(): string {
    return `templates of ${this.#ctx.id.toString().slice(0, 8)}`;
  }
}
