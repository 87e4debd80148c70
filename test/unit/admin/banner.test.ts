// npm start says whether the admin API is on (probed: 401 on, 404 off), and how to turn it on.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { adminApiIsOn, banner } from "../../../src/tools/local-edge/main.ts";

async function answering(status: number) {
  const server = http.createServer((_req, res) => res.writeHead(status).end());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), close: () => new Promise((r) => server.close(r)) };
}

describe("npm start's banner about the admin API", () => {
  it("says on, off, or that it could not tell", () => {
    const base = "http://127.0.0.1:8787";
    expect(banner(base, "us", true)).toContain("admin API      on: http://127.0.0.1:8787/_tollgate/dashboard");
    expect(banner(base, "us", false)).toContain("admin API      off (no ADMIN_TOKEN): npm start -- --var ADMIN_TOKEN:");
    expect(banner(base, "us")).toContain("could not tell");
  });

  it.each([[401, true], [404, false], [500, undefined]] as const)("reads a %i to the probe as %s", async (status, on) => {
    const server = await answering(status);
    try {
      expect(await adminApiIsOn(server.url)).toBe(on);
    } finally {
      await server.close();
    }
  });
});
