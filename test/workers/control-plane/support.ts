import { env, exports } from "cloudflare:workers";
import { checkResponse } from "../contract/control-plane.ts";
import { randomClientIp } from "../../support/callers.ts";

/** A fresh workspace per test: workspaces are isolated, so tests never see each other's data. */
export function freshWorkspace(): string {
  return crypto.randomUUID();
}

/**
 * Where the tests reach the control plane. In its own project (emulator-control-plane) the test
 * Worker is the emulator; in the gateway projects (test/workers/through-gateway/) it is the
 * gateway, which (run locally) routes `/v2` and `/v1/integrations` to the bound emulator Worker
 * unchanged, so the paths are the document's either way.
 */
export const THROUGH_GATEWAY = "COUNTERS" in env;
export const CONTROL_PLANE_URL = THROUGH_GATEWAY ? "https://gateway.test" : "https://control-plane.test";

/**
 * Paths the control-plane tests call that the reference document does not describe, each with
 * why; their answers are not held to it. Everything else is.
 */
export const OUTSIDE_THE_DOCUMENT: ReadonlyArray<readonly [prefix: string, reason: string]> = [
  ["/v2/sandboxes/templates", "sandbox templates: the spec describes them, the control-plane document does not (docs/control-plane-templates.md)"],
  ["/v2/_emulator", "the emulator's own switches, no real-API counterpart (emulators/control-plane/emulator-routes.ts)"],
];

/** Whole segments: `/v2/sandboxes/templatesx` is the document's (and not served). */
const outsideTheDocument = (path: string) => OUTSIDE_THE_DOCUMENT.some(([prefix]) => path === prefix || path.startsWith(`${prefix}/`));

/**
 * Operations the emulator serves beside the document's under another method, held to the
 * document's operation for the same resource: `PUT /v2/listeners/{id}` (the spec's name) answers
 * what `PATCH` does (docs/control-plane-listeners.md).
 */
export const CHECKED_AS: ReadonlyArray<readonly [method: string, path: RegExp, documentedMethod: string]> = [["PUT", /^\/v2\/listeners\/[^/]+$/, "PATCH"]];

const documentedMethod = (method: string, path: string) => CHECKED_AS.find(([m, p]) => m === method && p.test(path))?.[2] ?? method;

/**
 * A fetch whose every response is held to the control-plane contract (../contract/control-plane.ts)
 * before the test sees it: an answer the reference document does not allow fails the test that got
 * it. Paths in {@link OUTSIDE_THE_DOCUMENT} pass unchecked; {@link CHECKED_AS} maps a method.
 */
export function contractChecked(fetcher: (request: Request) => Response | Promise<Response> = (request) => exports.default.fetch(request)) {
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const response = await fetcher(request);
    if (!outsideTheDocument(url.pathname))
      await checkResponse({ method: documentedMethod(request.method, url.pathname), path: url.pathname + url.search }, response);
    return response;
  };
}

/** The API key the tests send with `workspace` when they name none: one per workspace. */
export const workspaceKey = (workspace: string) => `test-key-for-${workspace.toLowerCase()}`;

/** The test Worker's fetch (the emulator, or the gateway in front of it), contract-checked. */
export const controlPlaneFetch = contractChecked();

/**
 * Calls the control-plane emulator (through the gateway in the gateway projects) as a client
 * would, every answer contract-checked. The fresh client IP per call keeps a gateway's rate limits
 * out of the way where one is in front.
 */
export async function controlPlane(
  method: string,
  path: string,
  options: { workspace?: string; apiKey?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = { "cf-connecting-ip": randomClientIp(), ...options.headers };
  if (options.workspace) headers["x-tenant-id"] = options.workspace;
  // The key is the credential (X-Tenant-Id alone is 401): a workspace's own test key by default,
  // the first to choose it, so it stays the one key that workspace admits.
  const apiKey = options.apiKey ?? (options.workspace && workspaceKey(options.workspace));
  if (apiKey) headers["x-api-key"] = apiKey;
  let body: string | undefined;
  if (options.rawBody !== undefined || options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = options.rawBody ?? JSON.stringify(options.body);
  }
  const res = await controlPlaneFetch(`${CONTROL_PLANE_URL}${path}`, { method, headers, body });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}
