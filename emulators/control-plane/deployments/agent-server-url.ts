import type { Context } from "hono";
import { SettingError } from "../../../src/http/setting-error.ts";
import type { ControlPlaneEnv } from "../auth.ts";
import { DEPLOYMENT_ID_PLACEHOLDER } from "./agent-servers.ts";

const SETTING = "DEPLOYMENT_URL_TEMPLATE";

/** A host name or address, with an optional port (`127.0.0.1:8787`, `[::1]:8787`, `gateway.test`). */
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9-]+(\.[a-z0-9-]+)*)(:\d{1,5})?$/;

/**
 * Where a deployment created by this request will have its agent server, as a template with
 * `{deployment_id}`; null when this control plane has no agent-server binding (deployed alone).
 * DEPLOYMENT_URL_TEMPLATE when set (e.g. `https://{deployment_id}.agents.us.example.com` behind a
 * gateway routing by host); otherwise `/deployments/{deployment_id}` on the origin the client
 * called: the gateway's, which sets `X-Forwarded-Host` and `-Proto` itself (a client's values never
 * pass it), locally mounting /deployments on the agent server.
 * @throws SettingError when DEPLOYMENT_URL_TEMPLATE is set without `{deployment_id}` or is not an http(s) URL
 */
export function agentServerUrlTemplate(c: Context<ControlPlaneEnv>): string | null {
  if (!c.env.DEPLOYMENT_AGENT_SERVERS) return null;
  const configured = c.env.DEPLOYMENT_URL_TEMPLATE?.trim();
  if (configured) {
    if (!configured.includes(DEPLOYMENT_ID_PLACEHOLDER) || !/^https?:\/\/[^/]/.test(configured)) {
      throw new SettingError(SETTING, `${SETTING} must be an http(s) URL containing ${DEPLOYMENT_ID_PLACEHOLDER}, got '${configured}'.`);
    }
    return configured;
  }
  const url = new URL(c.req.url);
  // Called directly (a sandbox), the headers are the client's own: a value that is not a host or
  // a scheme is ignored rather than written into its record.
  const sentHost = c.req.header("x-forwarded-host")?.trim().toLowerCase();
  const sentProto = c.req.header("x-forwarded-proto")?.trim().toLowerCase();
  const host = sentHost && HOST.test(sentHost) ? sentHost : url.host;
  const proto = sentProto === "http" || sentProto === "https" ? sentProto : url.protocol.slice(0, -1);
  return `${proto}://${host}/deployments/${DEPLOYMENT_ID_PLACEHOLDER}`;
}
