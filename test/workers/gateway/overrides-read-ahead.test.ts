// An isolate's copy of the overrides is read again in the background once past half its refresh
// time, so a request of an isolate with traffic never waits for that read (at the edge, a round
// trip to the overrides store), while the bound (OVERRIDES_REFRESH_MS) holds as before: an idle
// isolate still reads before it decides. OverridesCache against a store the test answers, on a
// driven clock.
import { beforeEach, describe, expect, it } from "vitest";
import { EMPTY_SNAPSHOT, type OverridesSnapshot } from "../../../src/core/overrides/types.ts";
import { COPY_CACHE, copyKey, OverridesCache, READ_AHEAD_SPREAD, type OverridesSettings } from "../../../src/gateway/overrides.ts";
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

/** One isolate's OverridesCache; isolates of one data center share the clock and the store (`of`). */
function cacheWithStore(of?: { clock: { now: number; sleep: () => Promise<void> }; store: { reads: number; answer: OverridesSnapshot } }, readAheadSpread = 0) {
  const clock = of?.clock ?? { now: 1_900_000_000_000, sleep: () => Promise.resolve() };
  const store = of?.store ?? { reads: 0, answer: EMPTY_SNAPSHOT as OverridesSnapshot };
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
  const cache = new OverridesCache({ now: () => clock.now, sleep: clock.sleep }, () => stub, settings, readAheadSpread);
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

// Every test starts with no data center copy (another test's would be taken as this one's).
beforeEach(async () => {
  await (await caches.open(COPY_CACHE)).delete(copyKey("us", undefined));
});

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

  it("isolates of one data center share reads: one takes another's copy while it is younger than half the refresh time, and a change still arrives within the bound", async () => {
    const first = cacheWithStore();
    const { clock, store } = first;
    const second = cacheWithStore({ clock, store });
    const start = clock.now;
    await decide(first.cache, first.inBackground);
    expect(store.reads).toBe(1);
    // The second isolate's first request, a moment later: the data center's copy, no read of its own.
    clock.now = start + REFRESH_MS / 2 - 1;
    expect(await decide(second.cache, second.inBackground)).toEqual({ waited: true, count: RULE.limits.us.count });
    expect(store.reads).toBe(1);
    // A change; the copy both hold is past half its refresh time: the first request of each reads
    // ahead (the first isolate from the object, the second then takes that newer read).
    store.answer = limitedTo(7, 1);
    clock.now = start + REFRESH_MS / 2;
    await decide(first.cache, first.inBackground);
    await Promise.all(first.background);
    expect(store.reads).toBe(2);
    await decide(second.cache, second.inBackground);
    await Promise.all(second.background);
    expect(store.reads).toBe(2);
    // Both apply it within the bound of the change.
    clock.now = start + REFRESH_MS / 2 + 1;
    expect(await decide(first.cache, first.inBackground)).toEqual({ waited: false, count: 7 });
    expect(await decide(second.cache, second.inBackground)).toEqual({ waited: false, count: 7 });
  });

  it("a data center copy older than half the refresh time, or stamped ahead of this clock by more than a second, is not taken: the object is read", async () => {
    const first = cacheWithStore();
    const { clock, store } = first;
    const start = clock.now;
    await decide(first.cache, first.inBackground);
    clock.now = start + REFRESH_MS / 2;
    await decide(cacheWithStore({ clock, store }).cache);
    expect(store.reads).toBe(2);
    // That read, at half the refresh time, is now the copy: a clock 1,001 ms behind it does not take it.
    clock.now = start + REFRESH_MS / 2 - 1_001;
    await decide(cacheWithStore({ clock, store }).cache);
    expect(store.reads).toBe(3);
  });

  it("isolates that took one copy read ahead at ages of their own: the first one's read reaches the data center's copy before the others read ahead, and they take it", async () => {
    const first = cacheWithStore(undefined, 0);
    const { clock, store } = first;
    const last = cacheWithStore({ clock, store }, 1);
    const start = clock.now;
    await decide(first.cache, first.inBackground);
    await decide(last.cache, last.inBackground);
    expect(store.reads).toBe(1);
    // Past half the refresh time the first isolate reads ahead; a request of the other a moment
    // later does not read (its own age to read ahead is later), where both read before.
    store.answer = limitedTo(7, 1);
    clock.now = start + REFRESH_MS / 2;
    await decide(first.cache, first.inBackground);
    expect(first.background).toHaveLength(1);
    clock.now = start + REFRESH_MS / 2 + 1;
    await decide(last.cache, last.inBackground);
    expect(last.background).toHaveLength(0);
    await Promise.all(first.background);
    expect(store.reads).toBe(2);
    // At its own age it reads ahead: the data center's copy, no read of the object.
    clock.now = start + REFRESH_MS / 2 + READ_AHEAD_SPREAD * REFRESH_MS;
    await decide(last.cache, last.inBackground);
    expect(last.background).toHaveLength(1);
    await Promise.all(last.background);
    expect(store.reads).toBe(2);
    clock.now = start + REFRESH_MS / 2 + READ_AHEAD_SPREAD * REFRESH_MS + 1;
    expect(await decide(last.cache, last.inBackground)).toEqual({ waited: false, count: 7 });
  });
});
