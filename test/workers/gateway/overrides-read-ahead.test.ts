// An isolate's copy of the overrides is read again in the background once past half its refresh
// time, so a request of an isolate with traffic never waits for that read (at the edge, a round
// trip to the overrides store), while the bound (OVERRIDES_REFRESH_MS) holds as before: an idle
// isolate still reads before it decides. OverridesCache against a store the test answers, on a
// driven clock.
import { describe, expect, it } from "vitest";
import { EMPTY_SNAPSHOT, type OverridesSnapshot } from "../../../src/core/overrides/types.ts";
import { OverridesCache, type OverridesSettings } from "../../../src/gateway/overrides.ts";
import { publishedRow } from "../../support/rows.ts";

const REFRESH_MS = 1_000;
const RULE = publishedRow(16);
const WHO = { apiKey: "read-ahead-key", userId: null, clientIp: "192.0.2.1" };

/** Row 16 limited to `count` in the US, as the overrides store would answer after that change. */
function limitedTo(count: number, version: number): OverridesSnapshot {
  return {
    version,
    overrides: [{ kind: "rule", id: `o${version}`, rule: RULE.id, reason: "test", createdAt: 0, createdBy: "test", limits: { us: { count, interval: 60 } } }],
  };
}

function cacheWithStore() {
  const clock = { now: 1_900_000_000_000, sleep: () => Promise.resolve() };
  const store = { reads: 0, answer: EMPTY_SNAPSHOT as OverridesSnapshot };
  const settings: OverridesSettings = {
    region: "us",
    jurisdiction: undefined,
    hmacSecret: "x".repeat(32),
    overridesRefreshMs: REFRESH_MS,
    counterTimeoutMs: 1_000,
  };
  // The store as the cache reaches it (an RPC stub), answered by the test.
  const stub = {
    snapshot: async () => {
      store.reads++;
      return store.answer;
    },
  } as unknown as ReturnType<ConstructorParameters<typeof OverridesCache>[1]>;
  const cache = new OverridesCache({ now: () => clock.now, sleep: clock.sleep }, () => stub, settings);
  const background: Promise<unknown>[] = [];
  const inBackground = (work: Promise<unknown>) => void background.push(work);
  return { clock, store, cache, background, inBackground };
}

/** The limit a request on row 16 is counted under, and whether it had to wait for a read. */
async function decide(cache: OverridesCache, inBackground?: (work: Promise<unknown>) => void) {
  const answer = cache.effectiveRule(RULE, WHO, inBackground);
  const waited = answer instanceof Promise;
  const effective = await answer;
  return { waited, count: effective.treatment === "count" ? effective.limit.count : undefined };
}

describe("overrides read ahead of their refresh time", () => {
  it("past half its age the copy is read in the background, so no request waits, and a change still arrives within the bound", async () => {
    const { clock, store, cache, background, inBackground } = cacheWithStore();
    const start = clock.now;
    // The first request reads before it decides: there is no copy yet.
    expect(await decide(cache, inBackground)).toEqual({ waited: true, count: RULE.limits.us.count });
    expect(store.reads).toBe(1);
    // Younger than half the refresh time: no read.
    clock.now = start + REFRESH_MS / 2 - 1;
    expect(await decide(cache, inBackground)).toEqual({ waited: false, count: RULE.limits.us.count });
    expect(background).toHaveLength(0);
    // A change is made; the next request past half the copy's age reads it after its answer.
    store.answer = limitedTo(7, 1);
    clock.now = start + REFRESH_MS / 2;
    expect(await decide(cache, inBackground)).toEqual({ waited: false, count: RULE.limits.us.count });
    expect(background).toHaveLength(1);
    // Meanwhile no second read starts.
    expect(await decide(cache, inBackground)).toEqual({ waited: false, count: RULE.limits.us.count });
    expect(background).toHaveLength(1);
    await Promise.all(background);
    expect(store.reads).toBe(2);
    // Applied from then on, within the bound, and past the first copy's refresh time no request waits.
    clock.now = start + REFRESH_MS + 1;
    expect(await decide(cache, inBackground)).toEqual({ waited: false, count: 7 });
  });

  it("an isolate idle for longer than the refresh time still reads before it decides", async () => {
    const { clock, store, cache, background, inBackground } = cacheWithStore();
    const start = clock.now;
    await decide(cache, inBackground);
    store.answer = limitedTo(7, 1);
    clock.now = start + REFRESH_MS;
    expect(await decide(cache, inBackground)).toEqual({ waited: true, count: 7 });
    expect(background).toHaveLength(0);
    expect(store.reads).toBe(2);
  });

  it("without background work (no waitUntil) the request reads only once the copy is due, as before", async () => {
    const { clock, store, cache } = cacheWithStore();
    const start = clock.now;
    await decide(cache);
    clock.now = start + REFRESH_MS - 1;
    expect(await decide(cache)).toEqual({ waited: false, count: RULE.limits.us.count });
    expect(store.reads).toBe(1);
    store.answer = limitedTo(7, 1);
    clock.now = start + REFRESH_MS;
    expect(await decide(cache)).toEqual({ waited: true, count: 7 });
  });
});
