import { RpcTarget } from "cloudflare:workers";
import type { WorkspaceSettings } from "../workspace-settings.ts";

/** Listeners of one workspace (to be implemented: see the control-plane issue). */
export class ListenerStore extends RpcTarget {
  readonly #ctx: DurableObjectState;
  readonly #settings: WorkspaceSettings;
  constructor(ctx: DurableObjectState, settings: WorkspaceSettings) {
    super();
    this.#ctx = ctx;
    this.#settings = settings;
  }
  ping(): string {
    return `listeners of ${this.#ctx.id.toString().slice(0, 8)} ${typeof this.#settings}`;
  }
}
