/**
 * The authorization flow's moving parts that live in the Worker: the authorization prepared for
 * `authenticate`, the URL the user follows, the bound on `wait`, and the directory that takes a
 * credential-less redirect to the workspace that started it.
 */
import type { Context } from "hono";
import type { ControlPlaneEnv } from "../auth.ts";
import { randomSecret, sha256Hex } from "./secrets.ts";
import type { PendingDraft } from "./store.ts";

/** How long an authorization may stay pending before `wait` answers `not_found` (docs/control-plane-auth.md). */
export const FLOW_TTL_MS = 10 * 60_000;

/** The longest `wait` holds a request, in seconds: the document's default (30) doubled. */
export const MAX_WAIT_SECONDS = 60;

/** `?timeout=` in seconds, as a wait in ms: negative is 0 (answer at once), beyond the bound is the bound. */
export const waitMs = (timeoutSeconds: number): number => Math.min(Math.max(timeoutSeconds, 0), MAX_WAIT_SECONDS) * 1000;

/** A pending authorization for the store, and the code the user's redirect must bring back. */
export async function prepareAuthorization(now: number): Promise<{ draft: PendingDraft; code: string }> {
  const code = randomSecret(32);
  return { draft: { authId: crypto.randomUUID(), codeDigest: await sha256Hex(code), expiresMs: now + FLOW_TTL_MS }, code };
}

/**
 * The URL the user follows to authorize: the emulator plays the provider, which has already said
 * yes, so the URL is the redirect it would send the browser to, `GET /v2/auth/callback/{provider}`
 * with the code and the state (the auth id). Following it (no credential needed) grants the token.
 */
export function authorizationUrl(c: Context<ControlPlaneEnv>, providerId: string, authId: string, code: string): string {
  const url = new URL(`/v2/auth/callback/${encodeURIComponent(providerId)}`, publicOrigin(c));
  url.searchParams.set("code", code);
  url.searchParams.set("state", authId);
  return url.toString();
}

const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/**
 * The origin the caller reached: the gateway's (`X-Forwarded-Host`/`-Proto`, which the gateway
 * sets from its own URL and never passes from the client) when there is one, so the URL leads back
 * through the gateway; else the request's own. A malformed forwarded host is ignored.
 */
function publicOrigin(c: Context<ControlPlaneEnv>): string {
  const own = new URL(c.req.url);
  const host = c.req.header("x-forwarded-host")?.trim();
  const proto = c.req.header("x-forwarded-proto")?.trim().toLowerCase();
  if (host && HOST.test(host) && (proto === "http" || proto === "https")) return `${proto}://${host}`;
  return own.origin;
}

/**
 * The object that records which workspace holds a pending authorization. The redirect carries
 * only the auth id, never the workspace's id (an `X-Tenant-Id` is a credential here), so the auth
 * id names an object of its own; a UUID workspace name can never take this form.
 */
export const directoryOf = (c: Context<ControlPlaneEnv>, authId: string) => c.env.CONTROL_PLANE_WORKSPACES.getByName(`oauth-flow:${authId}`).oauth();

/** The request's workspace's OAuth store; declare with `using`. */
export const oauthOf = (c: Context<ControlPlaneEnv>, workspaceId = c.var.workspaceId) => c.env.CONTROL_PLANE_WORKSPACES.getByName(workspaceId).oauth();
