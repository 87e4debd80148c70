// npm start says whether the admin API is on (probed on its own host: 401 on, 404 off), where
// (admin.localhost, an origin of its own), and how to turn it on.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { adminApiIsOn, banner } from "../../../tools/local-edge/main.ts";

async function answering(status: number) {
  const hosts: (string | undefined)[] = [];
  const server = http.createServer((req, res) => {
    hosts.push(req.headers.host);
    res.writeHead(status).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return { url: new URL(`http://127.0.0.1:${port}`), port, hosts, close: () => new Promise((r) => server.close(r)) };
}

describe("npm start's banner about the admin API", () => {
  it("says on, off, or that it could not tell", () => {
    const base = "http://127.0.0.1:8787";
    expect(banner(base, "us", true)).toContain("admin API      on: http://admin.localhost:8787/_tollgate/dashboard");
    expect(banner(base, "us", false)).toContain("admin API      off (no ADMIN_TOKEN): npm start -- --var ADMIN_TOKEN:");
    expect(banner(base, "us", false)).toContain("then http://admin.localhost:8787/_tollgate/dashboard");
    expect(banner("http://127.0.0.1:18787", "us", true)).toContain("on: http://admin.localhost:18787/_tollgate/dashboard");
    // Never the upstreams' origin: the dashboard's login must not share it.
    expect(banner(base, "us", true)).not.toContain("http://127.0.0.1:8787/_tollgate");
    expect(banner(base, "us")).toContain("could not tell");
  });

  it("sends the session's edge secret with the probe: the private port answers nothing without it", async () => {
    const secrets: (string | string[] | undefined)[] = [];
    const server = http.createServer((req, res) => (secrets.push(req.headers["x-tollgate-local-edge"]), res.writeHead(404).end()));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
      expect(await adminApiIsOn(url, "session-secret")).toBe(false);
      expect(secrets).toEqual(["session-secret"]);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it.each([
    [401, true],
    [404, false],
    [500, undefined],
  ] as const)("reads a %i to the probe as %s", async (status, on) => {
    const server = await answering(status);
    try {
      expect(await adminApiIsOn(server.url)).toBe(on);
      expect(server.hosts).toEqual([`admin.localhost:${server.port}`]);
    } finally {
      await server.close();
    }
  });
});
