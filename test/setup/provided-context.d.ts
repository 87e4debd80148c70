// What the global setups (test/setup/) hand the tests through vitest's `provide`/`inject`.
import "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    /** An HTTP origin that redirects every request to a target that counts what reaches it. */
    redirectingOrigin: string;
    /** A WebSocket origin that echoes every frame (test/setup/websocket-origin.ts). */
    websocketOrigin: string;
  }
}
