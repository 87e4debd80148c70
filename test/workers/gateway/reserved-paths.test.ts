// Issue 32, finding 5: `//_tollgate/health`, `/%2F_tollgate/health` and `/x/..//_tollgate/health`
// reached the hosted API as `/_tollgate/health`. The reserved prefix is read on the canonical path
// the gateway forwards (src/core/rules/reserved-path.ts): every spelling of every reserved path is
// the admin API's or a 404, never counted, never forwarded, on every host and mount.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { rawPathOf } from "../../../src/admin/hosts.ts";
import type { Env } from "../../../src/env.ts";
import { gatewayWith, recordingLimiter, recordingUpstreams } from "../support/custom-gateway.ts";
import { freshIdentity, keyed } from "../support/requests.ts";
import { reservedPathSpelling } from "../../support/path-spellings.ts";
import { spellingRefusal } from "../../../src/core/rules/path-spelling.ts";

const REPORTED = ["//_tollgate/health", "/%2F_tollgate/health", "/x/..//_tollgate/health"];
const MORE = [
  "/%5Ftollgate/health",
  "/_tollgate/./health/",
  "/%2e%2e/_tollgate/overrides",
  "/api/v1/../../_tollgate/rules",
  "//_tollgate",
  "/%2F_tollgate%2Fmetrics",
];
// Mounts that strip or scope a prefix: the upstream would read `/_tollgate/...` as its own path.
const MOUNTED = ["/agent-server/_tollgate/health", "/deployments/0b7c6a3e-1f5d-4c3e-9c57-3d2f4a1b2c3d/_tollgate/health"];
// Below the agent server's mount, spellings it could read otherwise are refused (400) before the
// reserved prefix is looked at: neither counted nor forwarded either way.
const MOUNTED_REFUSED = ["/agent-server//_tollgate/health", "/agent-server/%2F_tollgate/health"];

const DEPLOYED: Partial<Env> = {
  ROUTING: "hosts",
  UPSTREAM_HOSTS: "api.example.com=hosted-api, control.example.com=control-plane, *.agents.example.com=agent-server",
  ADMIN_HOSTS: "tollgate-admin.example.com",
};

/** A gateway whose upstreams and counters record what reached them. */
function recordingGateway(overrides: Partial<Env> = {}) {
  const upstreams = recordingUpstreams();
  const limiter = recordingLimiter();
  const send = gatewayWith({ ...overrides, ...upstreams.bindings, COUNTERS: limiter.namespace });
  return { send, upstreams, limiter };
}

describe("the reserved prefix in any spelling", () => {
  it.each([...REPORTED, ...MORE, ...MOUNTED])("%s is a 404 on an upstream's host: never counted, never forwarded", async (path) => {
    const { send, upstreams, limiter } = recordingGateway();
    const res = await send(path, { headers: keyed(freshIdentity(), { authorization: "Bearer an-admin-token" }) });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(upstreams.reached()).toEqual([]);
    expect(limiter.calls.hits).toBe(0);
  });

  it.each(MOUNTED_REFUSED)("%s is refused 400: never counted, never forwarded", async (path) => {
    const { send, upstreams, limiter } = recordingGateway();
    const res = await send(path, { headers: keyed(freshIdentity()) });
    expect(res.status).toBe(400);
    expect(upstreams.reached()).toEqual([]);
    expect(limiter.calls.hits).toBe(0);
  });

  it("is a 404 on every upstream host when routing by host", async () => {
    const { send, upstreams, limiter } = recordingGateway(DEPLOYED);
    for (const host of ["api.example.com", "control.example.com", "x.agents.example.com"]) {
      for (const path of [...REPORTED, ...MORE]) {
        const res = await send(`https://${host}${path}`, { headers: keyed(freshIdentity()) });
        expect([host, path, res.status]).toEqual([host, path, 404]);
      }
    }
    expect(upstreams.reached()).toEqual([]);
    expect(limiter.calls.hits).toBe(0);
  });

  it("is never forwarded from the admin host, nor while ADMIN_HOSTS is broken", async () => {
    for (const overrides of [DEPLOYED, { ADMIN_HOSTS: "https://not a host" }]) {
      const { send, upstreams } = recordingGateway(overrides);
      for (const path of REPORTED) {
        const res = await send(`https://tollgate-admin.example.com${path}`);
        expect(res.status).toBeGreaterThanOrEqual(400);
        const other = await send(`https://api.example.com${path}`);
        expect(other.status).toBeGreaterThanOrEqual(400);
      }
      expect(upstreams.reached()).toEqual([]);
    }
  });

  it("holds for every spelling the canonicaliser accepts of every reserved path (property)", async () => {
    const { send, upstreams, limiter } = recordingGateway();
    const who = freshIdentity();
    await fc.assert(
      fc.asyncProperty(reservedPathSpelling, fc.constantFrom("", "/agent-server"), async ({ spelled }, mount) => {
        const res = await send(`${mount}${spelled}`, { headers: keyed(who) });
        // Below the mount the agent server's reading comes first: a spelling it could read otherwise is a 400.
        const sent = new URL(`https://gateway.test${mount}${spelled}`).pathname;
        const mounted = mount !== "" && sent.startsWith(`${mount}/`);
        const misread = mounted && spellingRefusal(sent, "starlette-or-hono", "/") !== undefined;
        expect([mount + spelled, res.status]).toEqual([mount + spelled, misread ? 400 : 404]);
      }),
      { numRuns: 200 },
    );
    expect(upstreams.reached()).toEqual([]);
    expect(limiter.calls.hits).toBe(0);
  });

  it("leaves paths that only look alike to their upstream", async () => {
    const { send, upstreams } = recordingGateway();
    for (const path of ["/_tollgatex/health", "/x/_tollgate/health", "/%255Ftollgate/health"]) {
      expect((await send(path, { headers: keyed(freshIdentity()) })).status).toBe(200);
    }
    expect(upstreams.reached()).toEqual(["hosted-api /_tollgatex/health", "hosted-api /x/_tollgate/health", "hosted-api /%255Ftollgate/health"]);
  });
});

describe("rawPathOf", () => {
  it("is the URL's pathname, read from the runtime's serialization", () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (url) => {
        const serialized = new Request(url).url;
        expect(rawPathOf(serialized)).toBe(new URL(serialized).pathname);
      }),
      { numRuns: 500 },
    );
  });
});
