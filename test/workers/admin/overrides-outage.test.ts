// The last known overrides survive an outage of the overrides store: several gateways (each
// an isolate of its own, as in isolates.test.ts) share one data center's cache; some of them
// cannot reach the object. New isolates enforce the copy the others kept, health says so, and a
// copy older than MAX_COPY_AGE_MS is no longer enforced. Clocks are driven by the test.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../src/env.ts";
import { MAX_COPY_AGE_MS } from "../../../src/gateway/overrides.ts";
import { freshIdentity } from "../support/requests.ts";
import { admin, adminGateway, adminUrl, configObject, dropDataCenterCopy, driveOverridesClock, region, resetAdminState, runsQuery } from "./support.ts";

const T = 1_900_000_000_000;
const REFRESH_MS = 5_000;

/** A OVERRIDES namespace whose object fails every call while `down.now` is true, the real one otherwise. */
function unreachableConfig(down = { now: true }) {
  const namespace = {
    jurisdiction: () => namespace,
    getByName: (name: string) => {
      const real = env.OVERRIDES.getByName(name);
      return new Proxy(real, {
        get(target, prop) {
          if (!down.now) return Reflect.get(target, prop);
          return () => Promise.reject(new Error("Durable Object reset because its code was updated (injected)"));
        },
      });
    },
  } as unknown as Env["OVERRIDES"];
  return { namespace, down };
}

afterEach(async () => {
  vi.restoreAllMocks();
  await resetAdminState();
});

/** The admin gateway, the overrides on the test's clock, no copy of them in the data center. */
async function withoutDataCenterCopy() {
  const clock = driveOverridesClock(T);
  await configObject(clock);
  await dropDataCenterCopy();
  const up = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS) });
  return { clock, up };
}

const healthOf = async (send: ReturnType<typeof adminGateway>) => (await send(adminUrl("/health"))).json() as Promise<{ status: string; detail?: string }>;

describe("the overrides store unreachable", () => {
  it("new isolates enforce the overrides another isolate of the data center last read; health says degraded", async () => {
    const { clock, up } = await withoutDataCenterCopy();
    vi.spyOn(console, "log").mockImplementation(() => {});
    const blocked = freshIdentity().apiKey;
    const slowed = freshIdentity().apiKey;
    expect((await admin(up, "POST", "/overrides", { body: { identity: { kind: "api-key", value: blocked }, action: "block", reason: "abuse" } })).status).toBe(
      201,
    );
    expect(
      (
        await admin(up, "POST", "/overrides", {
          body: { identity: { kind: "api-key", value: slowed }, rule: 12, action: "limit", limits: { [region]: { count: 2, interval: 60 } }, reason: "noisy" },
        })
      ).status,
    ).toBe(201);
    clock.now = T + REFRESH_MS; // a refresh of the isolate that made them writes the copy too
    expect((await runsQuery(up, freshIdentity().apiKey)).status).toBe(200);

    // Outage: three new isolates that cannot reach the object, later on.
    clock.now = T + 10 * 60_000;
    const { namespace } = unreachableConfig();
    const isolates = [0, 1, 2].map(() => adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), OVERRIDES: namespace }));
    for (const send of isolates) {
      expect((await runsQuery(send, blocked)).status).toBe(403);
      expect((await runsQuery(send, slowed)).headers.get("ratelimit-policy")).toBe('"runs-query-key";q=2;w=60');
      expect((await runsQuery(send, freshIdentity().apiKey)).headers.get("ratelimit-policy")).toBe('"runs-query-key";q=15;w=10');
    }
    const degraded = await healthOf(isolates[0]!);
    expect(degraded.status).toBe("degraded");
    expect(degraded.detail).toMatch(
      /^the overrides store cannot be read: enforcing the 2 overrides last read 595 s ago \(this data center's copy\), until that copy is 3600 s old$/,
    );
    expect(await healthOf(up)).toEqual({ status: "ok" });

    // An isolate that started while the object was down recovers once it answers.
    const flaky = unreachableConfig();
    const recovering = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), OVERRIDES: flaky.namespace });
    expect((await runsQuery(recovering, blocked)).status).toBe(403);
    flaky.down.now = false;
    clock.now += 1_000; // the retry after a failed read
    expect(await healthOf(recovering)).toEqual({ status: "ok" });
    expect((await runsQuery(recovering, blocked)).status).toBe(403);
  });

  it("a copy is enforced until it is MAX_COPY_AGE_MS old, not after: by a new isolate, and by one that had read it itself", async () => {
    const { clock, up } = await withoutDataCenterCopy();
    const logs: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: unknown) => void logs.push(String(line)));
    const blocked = freshIdentity().apiKey;
    expect((await admin(up, "POST", "/overrides", { body: { identity: { kind: "api-key", value: blocked }, action: "block", reason: "abuse" } })).status).toBe(
      201,
    );

    // An isolate that read the object itself, then lost it.
    const flaky = unreachableConfig({ now: false });
    const old = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), OVERRIDES: flaky.namespace });
    expect((await runsQuery(old, blocked)).status).toBe(403);
    flaky.down.now = true;

    clock.now = T + MAX_COPY_AGE_MS; // the last moment the copies (read at T) are enforced
    const { namespace } = unreachableConfig();
    expect((await runsQuery(adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), OVERRIDES: namespace }), blocked)).status).toBe(403);
    expect((await runsQuery(old, blocked)).status).toBe(403);

    clock.now = T + MAX_COPY_AGE_MS + 1; // older: a block ended meanwhile must not come back from it
    const late = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), OVERRIDES: namespace });
    expect((await runsQuery(late, blocked)).status).toBe(200);
    expect((await runsQuery(old, blocked)).status).toBe(200);
    const { status, detail } = await healthOf(late);
    expect(status).toBe("degraded");
    expect(detail).toBe("the overrides store cannot be read and no copy of the overrides younger than 3600 s is known: no override is enforced");
    expect(logs.map((l) => JSON.parse(l).event)).toContain("overrides_copy_expired");
  });

  it("an ended block does not come back from the data center's copy", async () => {
    const { clock, up } = await withoutDataCenterCopy();
    vi.spyOn(console, "log").mockImplementation(() => {});
    const K = freshIdentity().apiKey;
    const res = await admin(up, "POST", "/overrides", { body: { identity: { kind: "api-key", value: K }, action: "block", reason: "mistake" } });
    const { override } = (await res.json()) as { override: { id: string } };
    clock.now = T + 1_000;
    expect((await admin(up, "DELETE", `/overrides/${override.id}`)).status).toBe(200);
    clock.now = T + 2_000;
    const { namespace } = unreachableConfig();
    expect((await runsQuery(adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), OVERRIDES: namespace }), K)).status).toBe(200);
  });

  it("with no copy in the data center, a new isolate enforces nothing and health says so", async () => {
    await withoutDataCenterCopy();
    vi.spyOn(console, "log").mockImplementation(() => {});
    const { namespace } = unreachableConfig();
    const send = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS), OVERRIDES: namespace });
    expect((await runsQuery(send, freshIdentity().apiKey)).status).toBe(200);
    expect(await healthOf(send)).toEqual({
      status: "degraded",
      detail: "the overrides store cannot be read and no copy of the overrides younger than 3600 s is known: no override is enforced",
    });
  });

  it("concurrent first requests of a new isolate each wait for the overrides (none is decided without them)", async () => {
    const { up } = await withoutDataCenterCopy();
    vi.spyOn(console, "log").mockImplementation(() => {});
    const K = freshIdentity().apiKey;
    expect((await admin(up, "POST", "/overrides", { body: { identity: { kind: "api-key", value: K }, action: "block", reason: "abuse" } })).status).toBe(201);
    const fresh = adminGateway({ OVERRIDES_REFRESH_MS: String(REFRESH_MS) });
    const statuses = await Promise.all(Array.from({ length: 8 }, () => runsQuery(fresh, K).then((r) => r.status)));
    expect(statuses).toEqual(Array(8).fill(403));
  });
});
