/*
 * npm start serves the agent server below a mount (`/agent-server`, ROUTING=paths) and takes the
 * mount off before the server sees the path. The open-source server builds the URLs of its
 * generative UI (`POST /ui/{agent}`: `<script src="//<host>/ui/...">`) from `Host` alone and reads
 * no prefix, so those URLs would lead a client past the mount to another upstream. Under a mount,
 * and only there (deployed, each upstream has a host of its own: nothing is rewritten), the
 * mount is put back into them: what the mount took off the way in, it puts back on the way out.
 */

/** Whether `method upstreamPath` is the agent server's generative-UI route, whose answer names its script URLs. */
export function isUiRoute(method: string, upstreamPath: string): boolean {
  return method.toUpperCase() === "POST" && /^\/ui\/[^/]+$/.test(upstreamPath);
}

/**
 * The answer with `mount` put into the UI URLs it names on `host`: a text answer (HTML sent as
 * `text/plain` by the server), neither
 * compressed nor streamed (the route answers a few hundred bytes at once); any other as it is.
 *
 * @example
 * await withMountInUiUrls(new Response('<script src="http://127.0.0.1:8787/ui/agent/entrypoint.js">', { headers: { "content-type": "text/plain" } }), "127.0.0.1:8787", "/agent-server")
 * // <script src="http://127.0.0.1:8787/agent-server/ui/agent/entrypoint.js">
 */
export async function withMountInUiUrls(response: Response, host: string, mount: string): Promise<Response> {
  const type = response.headers.get("content-type") ?? "";
  if (!response.ok || !type.startsWith("text/") || response.headers.has("content-encoding") || !response.body) return response;
  const text = (await response.text()).replaceAll(`//${host}/ui/`, `//${host}${mount}/ui/`);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(text, { status: response.status, statusText: response.statusText, headers });
}
