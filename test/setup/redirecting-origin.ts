import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { TestProject } from "vitest/node";

/**
 * Two real HTTP servers for the Workers-runtime tests of redirects (test/workers/gateway/redirects.test.ts):
 * an origin that answers every request with a redirect to a second server, and that second server
 * (the redirect target), which only counts what reaches it. The origin reports the count at
 * `/__target-hits`, so a test can tell whether the gateway followed a redirect without asking the
 * target itself. Real sockets, because only a real fetch follows (or does not follow) a redirect.
 */
export default async function setup(project: TestProject) {
  const targetHits: { method: string; path: string; apiKey: string | undefined }[] = [];
  const target = createServer((req, res) => {
    targetHits.push({ method: req.method ?? "", path: req.url ?? "", apiKey: req.headers["x-api-key"] as string | undefined });
    res.writeHead(200, { "content-type": "application/json" }).end('{"reached":"target"}');
  });
  const targetUrl = await listen(target);
  const origin = createServer((req, res) => {
    if (req.url === "/__target-hits") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(targetHits));
      return;
    }
    // 307 keeps the method and body (a POST stays a POST), 302 is what most frameworks send.
    const status = req.method === "GET" ? 302 : 307;
    res.writeHead(status, { location: `${targetUrl}/stolen${req.url}`, "x-origin": "redirecting" }).end();
  });
  const originUrl = await listen(origin);
  project.provide("redirectingOrigin", originUrl);
  return async () => {
    await Promise.all([close(origin), close(target)]);
  };
}

function listen(server: Server): Promise<string> {
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}
