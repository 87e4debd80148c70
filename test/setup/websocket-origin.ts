import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { createRequire } from "node:module";
import type { TestProject } from "vitest/node";
import type { WebSocketServer as Server } from "ws";

// Loaded as Node loads it: the global setup's bundler would pick ws's browser stub, which has no server.
const { WebSocketServer } = createRequire(import.meta.url)("ws") as { WebSocketServer: typeof Server };

/**
 * A real WebSocket origin for the Workers-runtime tests of a deployed gateway's sockets
 * (test/workers/gateway/websocket-origin.test.ts): the gateway reaches it with `fetch` on an
 * origin URL, as it reaches a production upstream. Every upgrade is accepted and each frame echoed
 * as it came (text or binary); the text `close <code> <reason>` makes it close first, the text
 * `terminate` drops the connection with no close (a failed upstream), and a client's close is
 * answered with the same code and reason. `/__upgrades` (plain HTTP) lists the
 * headers each upgrade arrived with.
 */
export default async function setup(project: TestProject) {
  const upgrades: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    res
      .writeHead(req.url === "/__upgrades" ? 200 : 404, { "content-type": "application/json" })
      .end(JSON.stringify(req.url === "/__upgrades" ? upgrades : { detail: "Not Found" }));
  });
  const sockets = new WebSocketServer({ server });
  sockets.on("connection", (socket, req) => {
    upgrades.push({ ...req.headers, ":path": req.url });
    socket.on("message", (data, isBinary) => {
      if (!isBinary && data.toString() === "terminate") return socket.terminate();
      const asked = isBinary ? null : /^close (\d{4}) ?(.*)$/s.exec(data.toString());
      if (asked) socket.close(Number(asked[1]), asked[2]);
      else socket.send(data, { binary: isBinary });
    });
    socket.on("close", (code, reason) => {
      if (socket.readyState !== socket.CLOSED) socket.close(code === 1005 ? undefined : code, reason);
    });
  });
  const url = await new Promise<string>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)),
  );
  project.provide("websocketOrigin", url);
  return async () => {
    for (const client of sockets.clients) client.terminate();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}
