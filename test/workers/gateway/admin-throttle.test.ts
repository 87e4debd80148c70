// AdminThrottle's local windows (src/gateway/admin-throttle.ts): while the throttle's counter
// objects fail, each isolate counts failed admin authentications on its own LocalWindows
// (src/core/limiter/local-windows.ts), hard-bounded to LOCAL_CLIENTS clients, the least recently
// seen going first. The clock is driven, so no window slides while a test runs.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { AUTH_FAILURES } from "../../../src/admin/throttle.ts";
import type { Env } from "../../../src/env.ts";
import { AdminThrottle, LOCAL_CLIENTS, type ThrottleAddress } from "../../../src/gateway/admin-throttle.ts";
import { gatewaySettings } from "../../../src/gateway/settings.ts";

afterEach(() => vi.restoreAllMocks());

const T0 = 1_900_000_000_000;
const failing = {
  jurisdiction: () => failing,
  getByName: () => ({
    decide: () => Promise.reject(new Error("object exploded")),
    inspect: () => Promise.reject(new Error("object exploded")),
  }),
} as unknown as Env["COUNTERS"];
const outage = { ...env, COUNTERS: failing } as Env;
const settings = gatewaySettings(env);
const client = (n: number | string): ThrottleAddress => ({ object: `${settings.region}:admin-auth:0`, key: `client-${n}` });

/** A throttle on a clock the test moves, with the objects failing, and its log silenced. */
function throttleInOutage() {
  vi.spyOn(console, "log").mockImplementation(() => {});
  const clock = { now: T0 };
  const throttle = new AdminThrottle({ now: () => clock.now }, () => outage.COUNTERS, settings);
  return {
    clock,
    fail: (address: ThrottleAddress) => throttle.recordFailure(address, AUTH_FAILURES),
    standing: (address: ThrottleAddress) => throttle.standing(address, AUTH_FAILURES),
  };
}

describe("AdminThrottle while its objects fail", () => {
  it("counts the allowance per window; standing reads it without counting", async () => {
    const { clock, fail, standing } = throttleInOutage();
    const guesser = client("guesser");
    for (let i = 0; i < 3 * AUTH_FAILURES.count; i++) expect(await standing(guesser)).toEqual({ retryInMs: 0 });
    for (let i = 0; i < AUTH_FAILURES.count; i++) {
      expect(await fail(guesser), `failure ${i + 1}`).toEqual({ retryInMs: 0 });
      clock.now += 1_000;
    }
    // The first failure (T0) leaves the window at T0 + 60 s; it is now T0 + 5 s.
    expect(await standing(guesser)).toEqual({ retryInMs: AUTH_FAILURES.intervalMs - 5_000 });
    expect(await fail(guesser)).toEqual({ retryInMs: AUTH_FAILURES.intervalMs - 5_000 });
    clock.now = T0 + AUTH_FAILURES.intervalMs;
    expect(await standing(guesser)).toEqual({ retryInMs: 0 });
  });

  it(`keeps at most ${LOCAL_CLIENTS} clients, the least recently seen going first`, async () => {
    const { fail, standing } = throttleInOutage();
    const [quiet, seen] = [client("quiet"), client("seen")];
    for (let i = 0; i < AUTH_FAILURES.count; i++) {
      await fail(quiet);
      await fail(seen);
    }
    for (let n = 0; n < LOCAL_CLIENTS - 1; n++) {
      await fail(client(n));
      // A valid token from the guesser keeps it among the most recently seen.
      if (n % 1_000 === 0) expect((await standing(seen)).retryInMs).toBeGreaterThan(0);
    }
    // One client too many: the quiet one was seen least recently and starts again.
    expect((await standing(quiet)).retryInMs).toBe(0);
    expect((await standing(seen)).retryInMs).toBeGreaterThan(0);
  });

  it("opens no window for a client's standing alone, so valid tokens from many addresses drop no guesser's count", async () => {
    const { fail, standing } = throttleInOutage();
    const guesser = client("guesser");
    for (let i = 0; i < AUTH_FAILURES.count; i++) await fail(guesser);
    for (let n = 0; n < LOCAL_CLIENTS; n++) expect(await standing(client(n))).toEqual({ retryInMs: 0 });
    expect((await standing(guesser)).retryInMs).toBeGreaterThan(0);
  });
});
