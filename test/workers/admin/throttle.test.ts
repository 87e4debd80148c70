// Failed admin authentication is throttled per client address across isolates (src/admin/throttle.ts,
// docs/admin.md "Throttling"): after AUTH_FAILURES.count failures in a window, 429 with Retry-After
// to everything that client sends, a valid token included, each refusal logged without the
// credential or the address. The throttle objects' clocks are driven, so no window slides while a
// test runs however slow the machine.
import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_FAILURES } from "../../../src/admin/throttle.ts";
import type { Env } from "../../../src/env.ts";
import { freshIdentity } from "../support/requests.ts";
import { admin, adminGateway, driveThrottleClock, resetAdminState, TOKEN } from "./support.ts";

afterEach(() => resetAdminState());

const WRONG = "wrong-admin-token-0123456789abcd";
const T0 = 1_900_000_000_000;

/** What one client's 429 must carry: Retry-After within the window and a problem body saying so. */
async function expectThrottled(res: Response, label: string) {
  expect(res.status, label).toBe(429);
  const retryAfter = Number(res.headers.get("retry-after"));
  expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= AUTH_FAILURES.intervalMs / 1000, `${label}: Retry-After ${retryAfter}`).toBe(true);
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(await res.json()).toMatchObject({ status: 429, title: "Too Many Requests", detail: expect.stringContaining(`Retry after ${retryAfter} seconds`) });
  return retryAfter;
}

describe("failed admin authentication", () => {
  it("120 wrong tokens from one address: the first few are 401, every other one 429; another address is unaffected", async () => {
    const send = adminGateway();
    const ip = freshIdentity().ip;
    await driveThrottleClock(ip, T0);
    const statuses: number[] = [];
    for (let i = 0; i < 120; i++) {
      const res = await admin(send, "GET", "/rules", { token: `${WRONG}${i}`, ip });
      if (res.status === 429) await expectThrottled(res, `attempt ${i + 1}`);
      else await res.body?.cancel();
      statuses.push(res.status);
    }
    expect(statuses.slice(0, AUTH_FAILURES.count)).toEqual(Array(AUTH_FAILURES.count).fill(401));
    expect(statuses.slice(AUTH_FAILURES.count)).toEqual(Array(120 - AUTH_FAILURES.count).fill(429));

    // The guesser's address is refused even the right token: a 200 among the 429s would tell it
    // the guess was right.
    await expectThrottled(await admin(send, "GET", "/rules", { ip }), "the right token from the throttled address");
    // Another address: the right token works, a wrong one is a plain 401.
    const other = freshIdentity().ip;
    expect((await admin(send, "GET", "/rules", { ip: other })).status).toBe(200);
    expect((await admin(send, "GET", "/rules", { ip: other, token: WRONG })).status).toBe(401);
  });

  it("lets the address in again once its failures leave the window, telling it when in Retry-After", async () => {
    const send = adminGateway();
    const ip = freshIdentity().ip;
    const clock = await driveThrottleClock(ip, T0);
    for (let i = 0; i < AUTH_FAILURES.count; i++) {
      expect((await admin(send, "GET", "/rules", { token: WRONG, ip })).status).toBe(401);
      clock.now += 1_000;
    }
    // The first failure leaves the window at T0 + 60 s; it is now T0 + 5 s.
    const retryAfter = await expectThrottled(await admin(send, "GET", "/rules", { ip }), "right token at +5 s");
    expect(retryAfter).toBe(55);
    clock.now = T0 + AUTH_FAILURES.intervalMs - 1;
    await expectThrottled(await admin(send, "GET", "/rules", { ip }), "right token 1 ms early");
    clock.now = T0 + AUTH_FAILURES.intervalMs;
    expect((await admin(send, "GET", "/rules", { ip })).status).toBe(200);
  });

  it("holds across isolates: failures through one gateway throttle the address in another", async () => {
    const a = adminGateway();
    const b = adminGateway();
    const ip = freshIdentity().ip;
    await driveThrottleClock(ip, T0);
    const gateways = [a, b];
    for (let i = 0; i < AUTH_FAILURES.count; i++) {
      expect((await admin(gateways[i % 2]!, "GET", "/rules", { token: WRONG, ip })).status, `failure ${i + 1}`).toBe(401);
    }
    await expectThrottled(await admin(a, "GET", "/metrics", { token: WRONG, ip }), "through a");
    await expectThrottled(await admin(b, "GET", "/rules", { ip }), "the right token through b");
    // A third isolate, made after the failures, knows too.
    await expectThrottled(await admin(adminGateway(), "GET", "/rules", { ip }), "the right token through a new isolate");
  });

  it("admits no more than the allowance when the guesses race through many isolates at once", async () => {
    const gateways = Array.from({ length: 4 }, () => adminGateway());
    const ip = freshIdentity().ip;
    await driveThrottleClock(ip, T0);
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, i) => admin(gateways[i % gateways.length]!, "GET", "/rules", { token: `${WRONG}${i}`, ip })),
    );
    const statuses = answers.map((res) => res.status);
    await Promise.all(answers.map((res) => res.body?.cancel()));
    expect(statuses.filter((s) => s === 401)).toHaveLength(AUTH_FAILURES.count);
    expect(statuses.filter((s) => s === 429)).toHaveLength(60 - AUTH_FAILURES.count);
  });

  it("does not count a request without a credential (a browser's first visit), nor health", async () => {
    const send = adminGateway();
    const ip = freshIdentity().ip;
    await driveThrottleClock(ip, T0);
    for (let i = 0; i < 3 * AUTH_FAILURES.count; i++) {
      expect((await admin(send, "GET", "/rules", { token: null, ip })).status).toBe(401);
      expect((await admin(send, "GET", "/health", { token: null, ip })).status).toBe(200);
    }
    expect((await admin(send, "GET", "/rules", { ip })).status).toBe(200);
    // Health stays open to a throttled address: probes hold no token.
    for (let i = 0; i < AUTH_FAILURES.count + 1; i++) await admin(send, "GET", "/rules", { token: WRONG, ip });
    expect((await admin(send, "GET", "/health", { token: null, ip })).status).toBe(200);
  });

  it("counts a Basic login's wrong password like a wrong bearer token", async () => {
    const send = adminGateway();
    const ip = freshIdentity().ip;
    await driveThrottleClock(ip, T0);
    const headers = { authorization: `Basic ${btoa("admin:not-the-password")}` };
    for (let i = 0; i < AUTH_FAILURES.count; i++) expect((await admin(send, "GET", "/dashboard", { token: null, ip, headers })).status).toBe(401);
    await expectThrottled(await admin(send, "GET", "/dashboard", { token: null, ip, headers }), "sixth wrong password");
  });

  it("logs each throttled attempt, with neither the credential nor the address nor its digest", async () => {
    const send = adminGateway();
    const ip = "203.0.113.77";
    await driveThrottleClock(ip, T0);
    const log = vi.spyOn(console, "log");
    try {
      for (let i = 0; i < AUTH_FAILURES.count + 3; i++) await admin(send, "POST", "/overrides", { token: WRONG, ip, body: {} });
      await admin(send, "GET", "/rules", { ip });
      const lines = log.mock.calls.map(([line]) => String(line));
      const throttled = lines.filter((line) => line.includes('"admin_auth_throttled"')).map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(throttled).toHaveLength(4);
      expect(
        throttled.slice(0, 3).every((l) => l.credential === "wrong" && l.method === "POST" && l.path === "/_tollgate/overrides" && l.actor === undefined),
      ).toBe(true);
      expect(throttled[3]).toMatchObject({ credential: "valid", actor: "admin", method: "GET", path: "/_tollgate/rules" });
      const text = lines.join("\n");
      expect(text).not.toContain(WRONG);
      expect(text).not.toContain(TOKEN);
      expect(text).not.toContain(ip);
      expect(text).not.toMatch(/[0-9a-f]{16}/);
    } finally {
      log.mockRestore();
    }
  });

  it("counts in each isolate while the throttle's objects fail: a valid token works, guesses stay bounded per isolate", async () => {
    const failing = {
      jurisdiction: () => failing,
      getByName: () => ({
        decide: () => Promise.reject(new Error("object exploded")),
        inspect: () => Promise.reject(new Error("object exploded")),
      }),
    } as unknown as Env["COUNTERS"];
    const log = vi.spyOn(console, "log");
    try {
      const a = adminGateway({ COUNTERS: failing });
      const b = adminGateway({ COUNTERS: failing });
      const ip = freshIdentity().ip;
      expect((await admin(a, "GET", "/rules", { ip })).status).toBe(200);
      const statuses = [];
      for (let i = 0; i < 20; i++) statuses.push((await admin(a, "GET", "/rules", { token: WRONG, ip })).status);
      expect(statuses).toEqual([...Array(AUTH_FAILURES.count).fill(401), ...Array(20 - AUTH_FAILURES.count).fill(429)]);
      await expectThrottled(await admin(a, "GET", "/rules", { ip }), "the right token in the isolate that counted");
      // Another isolate knows nothing of them: the documented bound is the allowance per isolate.
      expect((await admin(b, "GET", "/rules", { ip })).status).toBe(200);
      expect((await admin(b, "GET", "/rules", { ip: freshIdentity().ip })).status).toBe(200);
      // One line per isolate and outage, not one per guess.
      expect(log.mock.calls.filter(([line]) => String(line).includes("admin_auth_throttle_unavailable"))).toHaveLength(2);
    } finally {
      log.mockRestore();
    }
  });
});
