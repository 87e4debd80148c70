// What the local edge's tests share: servers on a free loopback port, closed after each test.
import http from "node:http";
import net from "node:net";
import { once } from "node:events";
import { afterEach } from "vitest";

const servers: net.Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => (s.close(resolve), (s as http.Server).closeAllConnections?.()))));
});

/** Starts `server` on a free port of 127.0.0.1 and returns the port; it is closed after the test. */
export async function listen<S extends net.Server>(server: S): Promise<number> {
  servers.push(server);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return (server.address() as net.AddressInfo).port;
}

/** A loopback port nothing listens on any more (a gateway that is not up). */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
