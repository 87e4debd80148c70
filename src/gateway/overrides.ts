import type { Env } from "../env.ts";
import { copyKey, fresh, keepCopy, lastKnownCopy, MAX_COPY_AGE_MS } from "./last-known-overrides.ts";
import { compileOverrides, resolve, type CompiledOverrides, type Effective } from "../core/overrides/resolve.ts";
import { requestDigests, type RequestDigests, type RequestIdentities } from "../core/overrides/subject.ts";
import { EMPTY_SNAPSHOT, type OverridesSnapshot } from "../core/overrides/types.ts";
import type { Rule } from "../core/rules/load.ts";
import type { PublishedLimit } from "../core/rules/schema.ts";
import type { CounterAddress } from "../core/limiter/index.ts";
import type { GatewaySettings } from "./settings.ts";
import type { Isolate } from "./isolate.ts";
import type { Copy, OverrideCopies } from "./override-copies.ts";

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
 * An outage of the object (docs/overrides.md, "Outage"): every successful read is also written to
 * the data center's copy (src/gateway/last-known-overrides.ts). When the object cannot be read, the
 * isolate keeps the newer of its own copy and the data center's (a new isolate has only the
 * latter), logs it and tries again after a second. Neither is enforced once it is older than
 * MAX_COPY_AGE_MS, so an ended override cannot come back from a stale copy for longer than that.
 */

/** How long a failed read is trusted to stay failed before the next try. */
const RETRY_MS = 1_000;

const NO_OVERRIDES = compileOverrides(EMPTY_SNAPSHOT);

/** The region's overrides store, in the region's jurisdiction like the counters. */
export function overridesStore(env: Env, settings: Pick<GatewaySettings, "region" | "jurisdiction">) {
  const namespace = settings.jurisdiction ? env.OVERRIDES.jurisdiction(settings.jurisdiction) : env.OVERRIDES;
  return namespace.getByName(`config:${settings.region}`);
}

function copyOf(isolate: Isolate, env: Env, settings: GatewaySettings): Copy {
  const { ofSettings } = isolate.overrides;
  let copy = ofSettings.get(settings);
  if (!copy) ofSettings.set(settings, (copy = sharedCopy(isolate.overrides, env, settings)));
  return copy;
}

/** Configurations of one region and jurisdiction on one OVERRIDES binding share their copy. */
function sharedCopy({ copies }: OverrideCopies, env: Env, settings: GatewaySettings): Copy {
  let byRegion = copies.get(env.OVERRIDES);
  if (!byRegion) copies.set(env.OVERRIDES, (byRegion = new Map()));
  const key = `${settings.region}:${settings.jurisdiction ?? "none"}`;
  let copy = byRegion.get(key);
  if (!copy) {
    byRegion.set(key, (copy = { compiled: NO_OVERRIDES, readAt: Number.NEGATIVE_INFINITY, nextReadAt: Number.NEGATIVE_INFINITY, failing: false, reading: false, from: "object", expired: false }));
  }
  return copy;
}

/** The overrides in force for this isolate now, read again first when the copy is too old. */
export async function currentOverrides(isolate: Isolate, env: Env, settings: GatewaySettings): Promise<CompiledOverrides> {
  const copy = copyOf(isolate, env, settings);
  const now = isolate.clock.now();
  // One request reads; the others meanwhile keep the copy they have. They must not wait on its
  // read: in workerd a request waiting on another request's I/O is cancelled as hung, or resumes
  // in that request's context, where its own I/O is refused ("Cannot perform I/O on behalf of a
  // different request"). So a change is applied within OVERRIDES_REFRESH_MS plus one read.
  if (readDue(copy, now)) {
    copy.reading = true;
    try {
      await read(env, settings, copy, now);
    } finally {
      copy.reading = false;
    }
  }
  return inForce(copy, settings, isolate.clock.now());
}

/**
 * This request is to read the configuration: the copy is too old and no other request is reading
 * it, or this isolate has no answer yet at all (then every request reads for itself rather than
 * go without the overrides).
 */
function readDue(copy: Copy, now: number): boolean {
  return now >= copy.nextReadAt && (!copy.reading || copy.nextReadAt === Number.NEGATIVE_INFINITY);
}

/** The copy's overrides, or none once the copy is older than MAX_COPY_AGE_MS (only while reads fail). */
function inForce(copy: Copy, settings: GatewaySettings, now: number): CompiledOverrides {
  if (fresh(copy.readAt, now)) return copy.compiled;
  if (copy.readAt !== Number.NEGATIVE_INFINITY && !copy.expired) {
    copy.expired = true;
    console.log(JSON.stringify({ event: "overrides_copy_expired", region: settings.region, version: copy.compiled.version, ageMs: now - copy.readAt, maxAgeMs: MAX_COPY_AGE_MS }));
  }
  return NO_OVERRIDES;
}

async function read(env: Env, settings: GatewaySettings, copy: Copy, startedAt: number): Promise<void> {
  const { overridesRefreshMs } = settings;
  const key = copyKey(settings.region, settings.jurisdiction);
  let snapshot: OverridesSnapshot;
  try {
    snapshot = await within(settings.counterTimeoutMs, "the overrides store", overridesStore(env, settings).snapshot());
  } catch (error) {
    copy.nextReadAt = startedAt + Math.min(RETRY_MS, overridesRefreshMs);
    if (!copy.failing) console.log(JSON.stringify({ event: "overrides_unavailable", region: settings.region, error: String(error), keeping: copy.compiled.version }));
    copy.failing = true;
    await adoptKeptCopy(copy, settings, key, startedAt);
    return;
  }
  install(copy, snapshot, startedAt, overridesRefreshMs);
  if (copy.failing) console.log(JSON.stringify({ event: "overrides_recovered", region: settings.region, version: snapshot.version }));
  copy.failing = false;
  copy.expired = false;
  await keepDataCenterCopy(settings, snapshot, startedAt);
}

/** While the object fails: the data center's copy, when it is newer than this isolate's and still fresh. */
async function adoptKeptCopy(copy: Copy, settings: GatewaySettings, key: string, now: number): Promise<void> {
  let kept;
  try {
    kept = await within(settings.counterTimeoutMs, "the data center's cache", lastKnownCopy(key));
  } catch (error) {
    console.log(JSON.stringify({ event: "overrides_copy_unreadable", region: settings.region, error: String(error) }));
    return;
  }
  if (!kept || kept.readAt <= copy.readAt || !fresh(kept.readAt, now)) return;
  copy.compiled = compileOverrides(kept.snapshot);
  copy.readAt = kept.readAt;
  copy.from = "data-center";
  copy.expired = false;
  console.log(JSON.stringify({ event: "overrides_copy_adopted", region: settings.region, version: kept.snapshot.version, ageMs: now - kept.readAt }));
}

/** `promise`, or a rejection naming `what` after `ms`. */
async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
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

/**
 * After the admin API changed the configuration: this isolate takes the new snapshot at once
 * (the object answered it, so it is current as of when the change started), and so does the data
 * center's copy (an ended block must not come back from a copy written before it ended).
 */
export async function adoptSnapshot(isolate: Isolate, env: Env, settings: GatewaySettings, snapshot: OverridesSnapshot, startedAt: number): Promise<void> {
  const copy = copyOf(isolate, env, settings);
  install(copy, snapshot, startedAt, settings.overridesRefreshMs);
  copy.failing = false;
  copy.expired = false;
  await keepDataCenterCopy(settings, snapshot, startedAt);
}

/** Writes the data center's copy; a failure is logged and changes nothing else. */
async function keepDataCenterCopy(settings: GatewaySettings, snapshot: OverridesSnapshot, readAt: number): Promise<void> {
  try {
    await within(settings.counterTimeoutMs, "the data center's cache", keepCopy(copyKey(settings.region, settings.jurisdiction), { readAt, snapshot }));
  } catch (error) {
    // The overrides are applied all the same; only an outage starting now would miss this copy.
    console.log(JSON.stringify({ event: "overrides_copy_not_kept", region: settings.region, error: String(error) }));
  }
}

/**
 * For `/_tollgate/health`: undefined while this isolate reads the overrides store, otherwise
 * what it enforces instead (reading first when a read is due, so a new isolate's first probe
 * already knows).
 */
export async function overridesOutage(isolate: Isolate, env: Env, settings: GatewaySettings): Promise<string | undefined> {
  await currentOverrides(isolate, env, settings);
  const copy = copyOf(isolate, env, settings);
  if (!copy.failing) return undefined;
  const now = isolate.clock.now();
  const unreachable = "the overrides store cannot be read";
  if (!fresh(copy.readAt, now)) {
    return `${unreachable} and no copy of the overrides younger than ${MAX_COPY_AGE_MS / 1000} s is known: no override is enforced`;
  }
  const where = copy.from === "object" ? "this isolate's copy" : "this data center's copy";
  const ageS = Math.floor((now - copy.readAt) / 1000);
  return `${unreachable}: enforcing the ${copy.compiled.overrides.length} overrides last read ${ageS} s ago (${where}), until that copy is ${MAX_COPY_AGE_MS / 1000} s old`;
}

/** Digests of no identity: what `resolve` gets when no identity override exists. */
const NO_DIGESTS: RequestDigests = { prefixes: new Map() };

/**
 * What applies to this request on `rule`: blocked, exempt, or counted under which limit and mode.
 * Hashes the request's identities only when an identity override could match them. Answers at
 * once (no promise, so no wait) in the common case: a copy that needs no read and no identity
 * override in it.
 */
export function effectiveRule(isolate: Isolate, env: Env, settings: GatewaySettings, rule: Rule, request: RequestIdentities): Effective | Promise<Effective> {
  const copy = copyOf(isolate, env, settings);
  const now = isolate.clock.now();
  if (!readDue(copy, now) && copy.compiled.byIdentity.size === 0) return resolve(inForce(copy, settings, now), rule, settings.region, NO_DIGESTS, now);
  return effectiveRuleAfterRead(isolate, env, settings, rule, request);
}

async function effectiveRuleAfterRead(isolate: Isolate, env: Env, settings: GatewaySettings, rule: Rule, request: RequestIdentities): Promise<Effective> {
  const compiled = await currentOverrides(isolate, env, settings);
  const digests = compiled.byIdentity.size > 0 ? requestDigests(request, compiled.needs, settings.hmacSecret) : NO_DIGESTS;
  return resolve(compiled, rule, settings.region, digests, isolate.clock.now());
}

/**
 * Where a request is counted under `limit`. The object and key never change, so the window carries
 * on across limit changes. But while a limit other than the published one applies, the name the
 * isolate's caches go by (deny cache, coalescer, local fallback) carries it: a denial remembered
 * under one limit is then never answered under a raised one. (A denial remembered under a limit
 * stays true under any lower one, so sharing the published name with lowered limits is not needed
 * for safety, only raised ones must not share it; giving every non-published limit its own name
 * covers both.)
 */
export function countedAddress(address: CounterAddress, limit: PublishedLimit, published: PublishedLimit): CounterAddress {
  if (limit.count === published.count && limit.interval === published.interval) return address;
  return { ...address, name: `${address.name}@${limit.count}/${limit.interval}` };
}
