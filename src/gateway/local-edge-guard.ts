import type { Context } from "hono";
import { GatewayError } from "../http/gateway-error.ts";
import { renderError } from "../http/render-error.ts";
import { LOCAL_EDGE_HEADER } from "./local-edge-header.ts";
import type { GatewayEnv } from "./types.ts";

/*
 * npm start serves the gateway with `wrangler dev` on a private port behind the local edge, which
 * sets CF-Connecting-IP from the client's socket as Cloudflare's edge does. wrangler dev itself
 * keeps a client's CF-Connecting-IP, so a client that found the private port could pick its own
 * address and, with each new one, a fresh counter (issue 32, finding 8). npm start therefore gives
 * the Worker a random LOCAL_EDGE_SECRET for the session and the edge sends it on every request;
 * a request without it did not come through the edge and is refused before anything reads it.
 * Deployed, LOCAL_EDGE_SECRET is unset and this costs one property read.
 */

/**
 * The refusal for a request that did not come through npm start's local edge, or undefined
 * (no LOCAL_EDGE_SECRET set, or the request carries it).
 */
export function refuseAroundLocalEdge(c: Context<GatewayEnv>): Response | undefined {
  const secret = c.env.LOCAL_EDGE_SECRET;
  if (!secret) return undefined;
  if (sameSecret(c.req.raw.headers.get(LOCAL_EDGE_HEADER), secret)) return undefined;
  return renderError(
    new GatewayError(
      "forbidden",
      "This is the private port of npm start's gateway: send requests to the local edge (the address npm start printed), which sets the client address.",
    ),
  );
}

/** Compares in time that does not depend on where the values differ (their lengths aside). */
function sameSecret(sent: string | null, secret: string): boolean {
  if (sent === null || sent.length !== secret.length) return false;
  let difference = 0;
  for (let i = 0; i < secret.length; i++) difference |= sent.charCodeAt(i) ^ secret.charCodeAt(i);
  return difference === 0;
}
