import { exports } from "cloudflare:workers";

/** A fresh workspace per test: workspaces are isolated, so tests never see each other's data. */
export function freshWorkspace(): string {
  return crypto.randomUUID();
}

/**
 * Calls the control-plane emulator, the test Worker of its own project, as a client would. The
 * fresh client IP per call keeps a gateway's rate limits out of the way where one is in front
 * (test/workers/through-gateway/).
 */
export async function controlPlane(
  method: string,
  path: string,
  options: { workspace?: string; apiKey?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { "cf-connecting-ip": `10.${rand()}.${rand()}.${rand()}`, ...options.headers };
  if (options.workspace) headers["x-tenant-id"] = options.workspace;
  if (options.apiKey) headers["x-api-key"] = options.apiKey;
  let body: string | undefined;
  if (options.rawBody !== undefined || options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = options.rawBody ?? JSON.stringify(options.body);
  }
  const res = await exports.default.fetch(`https://control-plane.test${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

const rand = () => Math.floor(Math.random() * 250) + 1;
