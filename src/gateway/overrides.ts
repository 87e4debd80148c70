import type { Env } from "../env.ts";
import { withDeadline } from "./deadline.ts";
import { inJurisdiction } from "./objects.ts";
import { compileOverrides, resolve, type CompiledOverrides, type Effective } from "../core/overrides/resolve.ts";
import { requestDigests, type RequestDigests, type RequestIdentities } from "../core/overrides/subject.ts";
import { EMPTY_SNAPSHOT, type OverridesSnapshot } from "../core/overrides/types.ts";
import type { Rule } from "../core/rules/load.ts";
import type { Clock } from "./clock.ts";
import type { Background } from "./execution-context.ts";
import type { GatewaySettings } from "./settings.ts";

/*
 * Each isolate's copy of the region's overrides (docs/operating.md). The bound: a
 * copy is used only while it is younger than OVERRIDES_REFRESH_MS, its age counted from when its read
 * *started*. A read that starts after a change was acknowledged sees it (the overrides store
 * serializes both), so every isolate applies a change at most OVERRIDES_REFRESH_MS after it was made;
 * the isolate that made it applies it at once. The request that finds the copy stale waits for the
 * read (one per isolate at a time; concurrent requests share it), except before the isolate's
 * first read has answered: each such request reads for itself, so none is decided without the
 * overrides. Expiry does not wait for a read: every request compares `expiresAt` with the clock.
 *
 * Isolates of one data center share their reads: before it asks the object, an isolate takes the
 * data center's copy (below) when another isolate's read started less than half a refresh time
 * ago, so its copy is no older than its own read would make it, and the bound holds as it is (to
 * within the clocks of two machines of one data center). So a data center asks the object about
 * twice per refresh time, not each of its isolates that often: at the edge every read is a billed
 * Durable Object request.
 *
 * An outage of the object (docs/overrides.md, "Outage"): every successful read is also written to
 * the data center's copy (below). When the object cannot be read, the isolate keeps the newer of
 * its own copy and the data center's (a new isolate has only the latter), logs it and tries again
 * after a second. Neither is enforced once it is older than MAX_COPY_AGE_MS, so an ended override
 * cannot come back from a stale copy for longer than that.
 *
 * The data center's copy lives where a new isolate can read it while the overrides store cannot
 * be reached: the data center's own cache (the Workers Cache API), one entry per region and
 * jurisdiction. The Cache API depends on no Durable Object, and its entries never leave the data
 * center that wrote them (they are not replicated, not even to other data centers), so the copy
 * stays wherever the Worker runs: for the EU environment, served with Regional Services (EU), in
 * the EU. The entry is never served to a client: it lives in a named cache, under a URL of the
 * reserved `.internal` domain, and only this module reads it.
 */

/** How far apart two isolates' clocks in one data center may be, at most, for one to take the other's copy. */
const MAX_CLOCK_SKEW_MS = 1_000;

/**
 * How much later than half its refresh time, as a share of that time at most, an isolate reads
 * ahead: each isolate its own share (`readAheadSpread`). Isolates that all took one copy would
 * otherwise all read ahead at the same age, and each whose request came before the first read's
 * answer reached the data center's copy read the object too (about three reads where one serves;
 * at the edge each is a billed object request). Spread over an eighth of the refresh time, the
 * first isolate's read is in the data center's copy before most others read ahead, and they take
 * it; each still reads ahead with more than a third of the refresh time to spare.
 */
export const READ_AHEAD_SPREAD = 1 / 8;

/** How long a failed read is trusted to stay failed before the next try. */
const RETRY_MS = 1_000;

/** How long after it was read from the object a copy of the overrides is still enforced. */
export const MAX_COPY_AGE_MS = 3_600_000;

/** The name of the cache (caches.open) the data center's copies live in. */
export const COPY_CACHE = "tollgate-overrides";

const NO_OVERRIDES = compileOverrides(EMPTY_SNAPSHOT);

/** Digests of no identity: what `resolve` gets when no identity override exists. */
const NO_DIGESTS: RequestDigests = { prefixes: new Map() };

/** One copy of a region's overrides, as an isolate keeps it. */
interface Copy {
  compiled: CompiledOverrides;
  /** When the read that produced it started (epoch ms by the isolate's clock; the writer's for a data center copy). */
  readAt: number;
  /** Not before this time is the object asked again. */
  nextReadAt: number;
  /** A request of this isolate is reading the overrides now. */
  reading: boolean;
  failing: boolean;
  /** Where the copy came from: the object itself, or the data center's copy of an earlier read. */
  from: "object" | "data-center";
  /** The copy was found too old to enforce (logged once per outage). */
  expired: boolean;
}

/** A copy as the data center keeps it: the snapshot and when the read that produced it started (epoch ms). */
interface KeptCopy {
  readonly readAt: number;
  readonly snapshot: OverridesSnapshot;
}

/** The region's overrides store, in the region's jurisdiction like the counters. */
export function overridesStore(env: Env, settings: Pick<GatewaySettings, "region" | "jurisdiction">) {
  return inJurisdiction(env.OVERRIDES, settings.jurisdiction).getByName(`config:${settings.region}`);
}

/** What the overrides cache reads of the checked settings (src/gateway/settings.ts). */
export type OverridesSettings = Pick<GatewaySettings, "region" | "jurisdiction" | "hmacSecret" | "overridesRefreshMs" | "counterTimeoutMs">;

/**
 * An isolate's cache of its region's overrides (its region runtime holds one,
 * src/gateway/region-runtime.ts): what is in force now (`current`, `effectiveRule`), a change the
 * admin API made taken at once (`adopt`), and what is enforced while the overrides store cannot be
 * read (`outage`).
 *
 * @example
 * const overrides = new OverridesCache(clock, () => overridesStore(env, settings), settings);
 * const effective = await overrides.effectiveRule(rule, { apiKey, userId, clientIp });
 */
export class OverridesCache {
  readonly #clock: Clock;
  readonly #store: () => Pick<ReturnType<typeof overridesStore>, "snapshot">;
  readonly #settings: OverridesSettings;
  /** When in its refresh time this isolate reads ahead: half, plus this share of READ_AHEAD_SPREAD. */
  readonly #readAheadSpread: number;
  readonly #copy: Copy = {
    compiled: NO_OVERRIDES,
    readAt: Number.NEGATIVE_INFINITY,
    nextReadAt: Number.NEGATIVE_INFINITY,
    failing: false,
    reading: false,
    from: "object",
    expired: false,
  };

  /**
   * @param store the region's overrides store, reached for each read (overridesStore)
   * @param readAheadSpread from 0 to 1, this isolate's own (READ_AHEAD_SPREAD); random unless given
   */
  constructor(clock: Clock, store: () => Pick<ReturnType<typeof overridesStore>, "snapshot">, settings: OverridesSettings, readAheadSpread = Math.random()) {
    this.#clock = clock;
    this.#store = store;
    this.#settings = settings;
    this.#readAheadSpread = Math.min(1, Math.max(0, readAheadSpread));
  }

  /** The overrides in force for this isolate now, read again first when the copy is too old. */
  async current(): Promise<CompiledOverrides> {
    const copy = this.#copy;
    const now = this.#clock.now();
    // One request reads; the others meanwhile keep the copy they have. They must not wait on its
    // read: in workerd a request waiting on another request's I/O is cancelled as hung, or resumes
    // in that request's context, where its own I/O is refused ("Cannot perform I/O on behalf of a
    // different request"). So a change is applied within OVERRIDES_REFRESH_MS plus one read.
    if (readDue(copy, now)) {
      copy.reading = true;
      try {
        await this.#read(now);
      } finally {
        copy.reading = false;
      }
    }
    return this.#inForce(this.#clock.now());
  }

  /**
   * What applies to this request on `rule`: blocked, exempt, or counted under which limit and mode.
   * Hashes the request's identities only when an identity override could match them. Answers at
   * once (no promise, so no wait) in the common case: a copy that needs no read and no identity
   * override in it.
   */
  effectiveRule(rule: Rule, request: RequestIdentities, background?: Background): Effective | Promise<Effective> {
    const copy = this.#copy;
    const now = this.#clock.now();
    if (readDue(copy, now)) return this.#effectiveRuleAfterRead(rule, request);
    this.#readAhead(now, background);
    if (copy.compiled.byIdentity.size === 0) return resolve(this.#inForce(now), rule, this.#settings.region, NO_DIGESTS, now);
    return this.#effectiveRuleAfterRead(rule, request);
  }

  /**
   * Past half its refresh time (and this isolate's share of READ_AHEAD_SPREAD), a copy is read
   * again in the background by the request that finds it so (its `waitUntil`), so an isolate with
   * traffic never makes a request wait for the read: at the edge that read is a round trip. Only
   * an isolate idle for longer than the rest of the refresh time still reads before it decides, as
   * the bound requires.
   */
  #readAhead(now: number, background: Background | undefined): void {
    const copy = this.#copy;
    const refresh = this.#settings.overridesRefreshMs;
    const readAheadAt = copy.nextReadAt - refresh / 2 + this.#readAheadSpread * READ_AHEAD_SPREAD * refresh;
    if (!background || copy.reading || copy.failing || now < readAheadAt) return;
    copy.reading = true;
    background(this.#read(now).finally(() => (copy.reading = false)));
  }

  async #effectiveRuleAfterRead(rule: Rule, request: RequestIdentities): Promise<Effective> {
    const compiled = await this.current();
    const digests = compiled.byIdentity.size > 0 ? requestDigests(request, compiled.needs, this.#settings.hmacSecret) : NO_DIGESTS;
    return resolve(compiled, rule, this.#settings.region, digests, this.#clock.now());
  }

  /**
   * After the admin API changed the overrides: this isolate takes the new snapshot at once (the
   * object answered it, so it is current as of when the change started), and so does the data
   * center's copy (an ended block must not come back from a copy written before it ended).
   */
  async adopt(snapshot: OverridesSnapshot, startedAt: number): Promise<void> {
    const copy = this.#copy;
    install(copy, snapshot, startedAt, this.#settings.overridesRefreshMs);
    copy.failing = false;
    copy.expired = false;
    await this.#keepDataCenterCopy(snapshot, startedAt);
  }

  /**
   * For `/_tollgate/health`: undefined while this isolate reads the overrides store, otherwise
   * what it enforces instead (reading first when a read is due, so a new isolate's first probe
   * already knows).
   */
  async outage(): Promise<string | undefined> {
    await this.current();
    const copy = this.#copy;
    if (!copy.failing) return undefined;
    const now = this.#clock.now();
    const unreachable = "the overrides store cannot be read";
    if (!fresh(copy.readAt, now)) {
      return `${unreachable} and no copy of the overrides younger than ${MAX_COPY_AGE_MS / 1000} s is known: no override is enforced`;
    }
    const where = copy.from === "object" ? "this isolate's copy" : "this data center's copy";
    const ageS = Math.floor((now - copy.readAt) / 1000);
    return `${unreachable}: enforcing the ${copy.compiled.overrides.length} overrides last read ${ageS} s ago (${where}), until that copy is ${MAX_COPY_AGE_MS / 1000} s old`;
  }

  /** The copy's overrides, or none once the copy is older than MAX_COPY_AGE_MS (only while reads fail). */
  #inForce(now: number): CompiledOverrides {
    const copy = this.#copy;
    if (fresh(copy.readAt, now)) return copy.compiled;
    if (copy.readAt !== Number.NEGATIVE_INFINITY && !copy.expired) {
      copy.expired = true;
      console.log(
        JSON.stringify({
          event: "overrides_copy_expired",
          region: this.#settings.region,
          version: copy.compiled.version,
          ageMs: now - copy.readAt,
          maxAgeMs: MAX_COPY_AGE_MS,
        }),
      );
    }
    return NO_OVERRIDES;
  }

  async #read(startedAt: number): Promise<void> {
    const copy = this.#copy;
    const { region, overridesRefreshMs, counterTimeoutMs } = this.#settings;
    if (!copy.failing && (await this.#adoptYoungCopy(startedAt))) return;
    let snapshot: OverridesSnapshot;
    try {
      snapshot = await withDeadline(this.#store().snapshot(), counterTimeoutMs, "the overrides store");
    } catch (error) {
      copy.nextReadAt = startedAt + Math.min(RETRY_MS, overridesRefreshMs);
      if (!copy.failing) console.log(JSON.stringify({ event: "overrides_unavailable", region, error: String(error), keeping: copy.compiled.version }));
      copy.failing = true;
      await this.#adoptKeptCopy(startedAt);
      return;
    }
    install(copy, snapshot, startedAt, overridesRefreshMs);
    if (copy.failing) console.log(JSON.stringify({ event: "overrides_recovered", region, version: snapshot.version }));
    copy.failing = false;
    copy.expired = false;
    await this.#keepDataCenterCopy(snapshot, startedAt);
  }

  /**
   * The data center's copy instead of a read of the object, when another isolate's read of it
   * started less than half a refresh time before `now` (and after this isolate's own). True when
   * taken; a cache that cannot be read is as good as none (the object is read).
   */
  async #adoptYoungCopy(now: number): Promise<boolean> {
    const { overridesRefreshMs } = this.#settings;
    let kept;
    try {
      kept = await this.#readKeptCopy();
    } catch {
      return false;
    }
    const age = kept ? now - kept.readAt : Number.POSITIVE_INFINITY;
    // A copy "from the future" by more than two machines' clocks differ was not written by this deployment's clocks: not taken.
    if (!kept || kept.readAt <= this.#copy.readAt || age >= overridesRefreshMs / 2 || age < -MAX_CLOCK_SKEW_MS) return false;
    this.#take(kept);
    this.#copy.nextReadAt = kept.readAt + overridesRefreshMs;
    return true;
  }

  /** While the object fails: the data center's copy, when it is newer than this isolate's and still fresh. */
  async #adoptKeptCopy(now: number): Promise<void> {
    const { region } = this.#settings;
    let kept;
    try {
      kept = await this.#readKeptCopy();
    } catch (error) {
      console.log(JSON.stringify({ event: "overrides_copy_unreadable", region, error: String(error) }));
      return;
    }
    if (!kept || kept.readAt <= this.#copy.readAt || !fresh(kept.readAt, now)) return;
    this.#take(kept);
    console.log(JSON.stringify({ event: "overrides_copy_adopted", region, version: kept.snapshot.version, ageMs: now - kept.readAt }));
  }

  /** The data center's copy, or undefined when there is none; rejects when the cache cannot be read in time. */
  #readKeptCopy(): Promise<KeptCopy | undefined> {
    const { region, jurisdiction, counterTimeoutMs } = this.#settings;
    return withDeadline(lastKnownCopy(copyKey(region, jurisdiction)), counterTimeoutMs, "the data center's cache");
  }

  /** Enforces the data center's copy from now on, as read by its writer's clock. */
  #take(kept: KeptCopy): void {
    const copy = this.#copy;
    copy.compiled = compileOverrides(kept.snapshot);
    copy.readAt = kept.readAt;
    copy.from = "data-center";
    copy.expired = false;
  }

  /** Writes the data center's copy; a failure is logged and changes nothing else. */
  async #keepDataCenterCopy(snapshot: OverridesSnapshot, readAt: number): Promise<void> {
    const { region, jurisdiction, counterTimeoutMs } = this.#settings;
    try {
      await withDeadline(keepCopy(copyKey(region, jurisdiction), { readAt, snapshot }), counterTimeoutMs, "the data center's cache");
    } catch (error) {
      // The overrides are applied all the same; only an outage starting now would miss this copy.
      console.log(JSON.stringify({ event: "overrides_copy_not_kept", region, error: String(error) }));
    }
  }
}

/**
 * This request is to read the overrides: the copy is too old and no other request is reading
 * it, or this isolate has no answer yet at all (then every request reads for itself rather than
 * go without the overrides).
 */
function readDue(copy: Copy, now: number): boolean {
  return now >= copy.nextReadAt && (!copy.reading || copy.nextReadAt === Number.NEGATIVE_INFINITY);
}

function install(copy: Copy, snapshot: OverridesSnapshot, startedAt: number, refreshMs: number): void {
  // A read that started earlier may answer later than one that started after it (an admin
  // change adopted meanwhile): the one that started last is the newest.
  // A data center's copy was read by another isolate's clock: the object's own answer replaces it.
  if (startedAt >= copy.readAt || copy.from === "data-center") {
    copy.compiled = compileOverrides(snapshot);
    copy.readAt = startedAt;
    copy.from = "object";
  }
  copy.nextReadAt = copy.readAt + refreshMs;
}

/** Where the data center's copy of a region's overrides is kept (a key, never a URL anything serves). */
export function copyKey(region: string, jurisdiction: string | undefined): string {
  return `https://overrides.tollgate.internal/${region}/${jurisdiction ?? "none"}`;
}

/** Writes the data center's copy; the Cache API drops it by itself once it is too old to be enforced. */
async function keepCopy(key: string, copy: KeptCopy): Promise<void> {
  const cache = await caches.open(COPY_CACHE);
  const body = JSON.stringify(copy);
  await cache.put(key, new Response(body, { headers: { "content-type": "application/json", "cache-control": `max-age=${MAX_COPY_AGE_MS / 1000}` } }));
}

/** The copy kept in this data center, or undefined when there is none or it is unreadable. */
async function lastKnownCopy(key: string): Promise<KeptCopy | undefined> {
  const cache = await caches.open(COPY_CACHE);
  const res = await cache.match(key);
  if (!res) return undefined;
  const kept = (await res.json()) as Partial<KeptCopy>;
  if (typeof kept.readAt !== "number" || !Number.isFinite(kept.readAt) || !isSnapshot(kept.snapshot)) return undefined;
  return { readAt: kept.readAt, snapshot: kept.snapshot };
}

function isSnapshot(value: unknown): value is OverridesSnapshot {
  if (typeof value !== "object" || value === null) return false;
  const { version, overrides } = value as Partial<OverridesSnapshot>;
  return typeof version === "number" && Array.isArray(overrides);
}

/** Whether a copy read at `readAt` may still be enforced at `now`. */
function fresh(readAt: number, now: number): boolean {
  return now - readAt <= MAX_COPY_AGE_MS;
}
