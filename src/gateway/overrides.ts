import type { Env } from "../env.ts";
import { operatingSettings } from "../admin/settings.ts";
import { compileOverrides, resolve, type CompiledOverrides, type Effective } from "../overrides/resolve.ts";
import { requestDigests, type RequestDigests, type RequestIdentities } from "../overrides/subject.ts";
import { EMPTY_SNAPSHOT, type ConfigSnapshot } from "../overrides/types.ts";
import type { Rule } from "../rules/load.ts";
import type { PublishedLimit } from "../rules/schema.ts";
import type { CounterAddress } from "../limiter/index.ts";
import type { GatewayConfig } from "./config.ts";
import type { Isolate } from "./isolate.ts";

/*
 * Each isolate's copy of the region's overrides (README, "Operating the gateway"). The bound: a
 * copy is used only while it is younger than CONFIG_REFRESH_MS, its age counted from when its read
 * *started*. A read that starts after a change was acknowledged sees it (the configuration object
 * serializes both), so every isolate applies a change at most CONFIG_REFRESH_MS after it was made;
 * the isolate that made it applies it at once. The request that finds the copy stale waits for the
 * read (one per isolate at a time; concurrent requests share it). If the object cannot be read,
 * the isolate keeps its last copy (as envoy keeps its rules after a bad reload), logs it and tries
 * again after a second. Expiry does not wait for a read: every request compares `expiresAt` with
 * the clock.
 */

/** How long a failed read is trusted to stay failed before the next try. */
const RETRY_MS = 1_000;

interface Copy {
  compiled: CompiledOverrides;
  /** When the read that produced it started (epoch ms by the isolate's clock). */
  readAt: number;
  /** Not before this time is the object asked again. */
  nextReadAt: number;
  /** A request of this isolate is reading the configuration now. */
  reading: boolean;
  failing: boolean;
}

/** An isolate's copies of the overrides (src/gateway/isolate.ts), by CONFIG binding and region. */
export class OverrideCopies {
  readonly copies = new WeakMap<object, Map<string, Copy>>();
  /** The copy each configuration uses (a configuration belongs to one env, so to one CONFIG binding). */
  readonly ofConfig = new WeakMap<GatewayConfig, Copy>();
}

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
  if (!copy) byRegion.set(key, (copy = { compiled: compileOverrides(EMPTY_SNAPSHOT), readAt: Number.NEGATIVE_INFINITY, nextReadAt: Number.NEGATIVE_INFINITY, failing: false, reading: false }));
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
  return copy.compiled;
}

/** This request is to read the configuration: the copy is too old and no other request is reading it. */
function readDue(copy: Copy, now: number): boolean {
  return now >= copy.nextReadAt && !copy.reading;
}

async function read(env: Env, config: GatewayConfig, copy: Copy, startedAt: number): Promise<void> {
  const { configRefreshMs } = operatingSettings(env);
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`the configuration object did not answer within ${config.limiterTimeoutMs} ms`)), config.limiterTimeoutMs);
    });
    const snapshot = await Promise.race([configStore(env, config).snapshot(), timeout]);
    install(copy, snapshot, startedAt, configRefreshMs);
    if (copy.failing) console.log(JSON.stringify({ event: "config_recovered", region: config.region, version: snapshot.version }));
    copy.failing = false;
  } catch (error) {
    copy.nextReadAt = startedAt + Math.min(RETRY_MS, configRefreshMs);
    if (!copy.failing) {
      console.log(JSON.stringify({ event: "config_unavailable", region: config.region, error: String(error), keeping: copy.compiled.version }));
    }
    copy.failing = true;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

function install(copy: Copy, snapshot: ConfigSnapshot, startedAt: number, refreshMs: number): void {
  // A read that started earlier may answer later than one that started after it (an admin
  // change adopted meanwhile): the one that started last is the newest.
  if (startedAt >= copy.readAt) {
    copy.compiled = compileOverrides(snapshot);
    copy.readAt = startedAt;
  }
  copy.nextReadAt = copy.readAt + refreshMs;
}

/**
 * After the admin API changed the configuration: this isolate takes the new snapshot at once
 * (the object answered it, so it is current as of when the change started).
 */
export function adoptSnapshot(isolate: Isolate, env: Env, config: GatewayConfig, snapshot: ConfigSnapshot, startedAt: number): void {
  install(copyOf(isolate, env, config), snapshot, startedAt, operatingSettings(env).configRefreshMs);
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
  if (!readDue(copy, now) && copy.compiled.byIdentity.size === 0) return resolve(copy.compiled, rule, config.region, NO_DIGESTS, now);
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
