import type { Env } from "../env.ts";
import { operatingSettings } from "./config.ts";
import { copyKey, fresh, keepCopy, lastKnownCopy, MAX_COPY_AGE_MS } from "../overrides/last-known.ts";
import { compileOverrides, resolve, type CompiledOverrides, type Effective } from "../overrides/resolve.ts";
import { requestDigests, type RequestDigests, type RequestIdentities } from "../overrides/subject.ts";
import { EMPTY_SNAPSHOT, type ConfigSnapshot } from "../overrides/types.ts";
import type { Rule } from "../rules/load.ts";
import type { PublishedLimit } from "../rules/schema.ts";
import type { CounterAddress } from "../limiter/index.ts";
import type { GatewayConfig } from "./config.ts";
import type { Isolate } from "./isolate.ts";
import type { Copy, OverrideCopies } from "./override-copies.ts";

/*
 * Each isolate's copy of the region's overrides (docs/operating.md). The bound: a
 * copy is used only while it is younger than CONFIG_REFRESH_MS, its age counted from when its read
 * *started*. A read that starts after a change was acknowledged sees it (the configuration object
 * serializes both), so every isolate applies a change at most CONFIG_REFRESH_MS after it was made;
 * the isolate that made it applies it at once. The request that finds the copy stale waits for the
 * read (one per isolate at a time; concurrent requests share it), except before the isolate's
 * first read has answered: each such request reads for itself, so none is decided without the
 * overrides. Expiry does not wait for a read: every request compares `expiresAt` with the clock.
 *
 * An outage of the object (docs/overrides.md, "Outage"): every successful read is also written to
 * the data center's copy (src/overrides/last-known.ts). When the object cannot be read, the
 * isolate keeps the newer of its own copy and the data center's (a new isolate has only the
 * latter), logs it and tries again after a second. Neither is enforced once it is older than
 * MAX_COPY_AGE_MS, so an ended override cannot come back from a stale copy for longer than that.
 */

/** How long a failed read is trusted to stay failed before the next try. */
const RETRY_MS = 1_000;

const NO_OVERRIDES = compileOverrides(EMPTY_SNAPSHOT);

/** The region's configuration object, in the region's jurisdiction like the counters. */
export function configStore(env: Env, config: Pick<GatewayConfig, "region" | "jurisdiction">) {
  const namespace = config.jurisdiction ? env.CONFIG.jurisdiction(config.jurisdiction) : env.CONFIG;
  return namespace.getByName(`config:${config.region}`);
}

function copyOf(isolate: Isolate, env: Env, config: GatewayConfig): Copy {
  const { ofConfig } = isolate.overrides;
  let copy = ofConfig.get(config);
  if (!copy) ofConfig.set(config, (copy = sharedCopy(isolate.overrides, env, config)));
  return copy;
}

/** Configurations of one region and jurisdiction on one CONFIG binding share their copy. */
function sharedCopy({ copies }: OverrideCopies, env: Env, config: GatewayConfig): Copy {
  let byRegion = copies.get(env.CONFIG);
  if (!byRegion) copies.set(env.CONFIG, (byRegion = new Map()));
  const key = `${config.region}:${config.jurisdiction ?? "none"}`;
  let copy = byRegion.get(key);
  if (!copy) {
    byRegion.set(key, (copy = { compiled: NO_OVERRIDES, readAt: Number.NEGATIVE_INFINITY, nextReadAt: Number.NEGATIVE_INFINITY, failing: false, reading: false, from: "object", expired: false }));
  }
  return copy;
}

/** The overrides in force for this isolate now, read again first when the copy is too old. */
export async function currentOverrides(isolate: Isolate, env: Env, config: GatewayConfig): Promise<CompiledOverrides> {
  const copy = copyOf(isolate, env, config);
  const now = isolate.clock.now();
  // One request reads; the others meanwhile keep the copy they have. They must not wait on its
  // read: in workerd a request waiting on another request's I/O is cancelled as hung, or resumes
  // in that request's context, where its own I/O is refused ("Cannot perform I/O on behalf of a
  // different request"). So a change is applied within CONFIG_REFRESH_MS plus one read.
  if (readDue(copy, now)) {
    copy.reading = true;
    try {
      await read(env, config, copy, now);
    } finally {
      copy.reading = false;
    }
  }
  return inForce(copy, config, isolate.clock.now());
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
function inForce(copy: Copy, config: GatewayConfig, now: number): CompiledOverrides {
  if (fresh(copy.readAt, now)) return copy.compiled;
  if (copy.readAt !== Number.NEGATIVE_INFINITY && !copy.expired) {
    copy.expired = true;
    console.log(JSON.stringify({ event: "config_copy_expired", region: config.region, version: copy.compiled.version, ageMs: now - copy.readAt, maxAgeMs: MAX_COPY_AGE_MS }));
  }
  return NO_OVERRIDES;
}

async function read(env: Env, config: GatewayConfig, copy: Copy, startedAt: number): Promise<void> {
  const { configRefreshMs } = operatingSettings(env);
  const key = copyKey(config.region, config.jurisdiction);
  let snapshot: ConfigSnapshot;
  try {
    snapshot = await within(config.limiterTimeoutMs, "the configuration object", configStore(env, config).snapshot());
  } catch (error) {
    copy.nextReadAt = startedAt + Math.min(RETRY_MS, configRefreshMs);
    if (!copy.failing) console.log(JSON.stringify({ event: "config_unavailable", region: config.region, error: String(error), keeping: copy.compiled.version }));
    copy.failing = true;
    await adoptKeptCopy(copy, config, key, startedAt);
    return;
  }
  install(copy, snapshot, startedAt, configRefreshMs);
  if (copy.failing) console.log(JSON.stringify({ event: "config_recovered", region: config.region, version: snapshot.version }));
  copy.failing = false;
  copy.expired = false;
  await keepDataCenterCopy(config, snapshot, startedAt);
}

/** While the object fails: the data center's copy, when it is newer than this isolate's and still fresh. */
async function adoptKeptCopy(copy: Copy, config: GatewayConfig, key: string, now: number): Promise<void> {
  let kept;
  try {
    kept = await within(config.limiterTimeoutMs, "the data center's cache", lastKnownCopy(key));
  } catch (error) {
    console.log(JSON.stringify({ event: "config_copy_unreadable", region: config.region, error: String(error) }));
    return;
  }
  if (!kept || kept.readAt <= copy.readAt || !fresh(kept.readAt, now)) return;
  copy.compiled = compileOverrides(kept.snapshot);
  copy.readAt = kept.readAt;
  copy.from = "data-center";
  copy.expired = false;
  console.log(JSON.stringify({ event: "config_copy_adopted", region: config.region, version: kept.snapshot.version, ageMs: now - kept.readAt }));
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

function install(copy: Copy, snapshot: ConfigSnapshot, startedAt: number, refreshMs: number): void {
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
export async function adoptSnapshot(isolate: Isolate, env: Env, config: GatewayConfig, snapshot: ConfigSnapshot, startedAt: number): Promise<void> {
  const copy = copyOf(isolate, env, config);
  install(copy, snapshot, startedAt, operatingSettings(env).configRefreshMs);
  copy.failing = false;
  copy.expired = false;
  await keepDataCenterCopy(config, snapshot, startedAt);
}

/** Writes the data center's copy; a failure is logged and changes nothing else. */
async function keepDataCenterCopy(config: GatewayConfig, snapshot: ConfigSnapshot, readAt: number): Promise<void> {
  try {
    await within(config.limiterTimeoutMs, "the data center's cache", keepCopy(copyKey(config.region, config.jurisdiction), { readAt, snapshot }));
  } catch (error) {
    // The overrides are applied all the same; only an outage starting now would miss this copy.
    console.log(JSON.stringify({ event: "config_copy_not_kept", region: config.region, error: String(error) }));
  }
}

/**
 * For `/_tollgate/health`: undefined while this isolate reads the configuration object, otherwise
 * what it enforces instead (reading first when a read is due, so a new isolate's first probe
 * already knows).
 */
export async function overridesOutage(isolate: Isolate, env: Env, config: GatewayConfig): Promise<string | undefined> {
  await currentOverrides(isolate, env, config);
  const copy = copyOf(isolate, env, config);
  if (!copy.failing) return undefined;
  const now = isolate.clock.now();
  const unreachable = "the configuration object cannot be read";
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
export function effectiveRule(isolate: Isolate, env: Env, config: GatewayConfig, rule: Rule, request: RequestIdentities): Effective | Promise<Effective> {
  const copy = copyOf(isolate, env, config);
  const now = isolate.clock.now();
  if (!readDue(copy, now) && copy.compiled.byIdentity.size === 0) return resolve(inForce(copy, config, now), rule, config.region, NO_DIGESTS, now);
  return effectiveRuleAfterRead(isolate, env, config, rule, request);
}

async function effectiveRuleAfterRead(isolate: Isolate, env: Env, config: GatewayConfig, rule: Rule, request: RequestIdentities): Promise<Effective> {
  const compiled = await currentOverrides(isolate, env, config);
  const digests = compiled.byIdentity.size > 0 ? requestDigests(request, compiled.needs, config.hmacSecret) : NO_DIGESTS;
  return resolve(compiled, rule, config.region, digests, isolate.clock.now());
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
