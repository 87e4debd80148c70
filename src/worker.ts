import { adminFrontDoor } from "./admin/app.ts";
import { createGateway, type GatewayOptions } from "./gateway/app.ts";
import { refuseAroundLocalEdge } from "./gateway/local-edge-guard.ts";

/**
 * The Worker: the request path (src/gateway) with the operator surface (src/admin) as its front
 * door. The one module that knows both, so each layer imports only the layers below it
 * (docs/layout.md).
 *
 * @example
 * export default createWorker(); // production: the published tables, the runtime's clock
 * createWorker({ clock: { now: () => t } }); // a test's gateway, on a clock it drives
 */
export function createWorker(options: Omit<GatewayOptions, "frontDoor"> = {}) {
  return createGateway({
    ...options,
    // npm start's private port answers only its local edge; then the admin API on its hosts.
    frontDoor: (parts) => {
      const admin = adminFrontDoor(parts);
      return (c) => refuseAroundLocalEdge(c) ?? admin(c);
    },
  });
}
