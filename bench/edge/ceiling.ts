// Pure: how much traffic one rule can take in one region before its busiest counter object passes
// Cloudflare's soft limit (about 1,000 requests per second per object), when clients are spread
// over isolates. A simulation of the counting layer's calls as src/gateway/counting.ts makes them:
// one call in flight per counter and isolate, the requests that arrive meanwhile going together as
// the next call (the coalescer); no leases (a client served by several isolates gets none today,
// docs/counting.md), so this is the worst case. Objects answer in one round trip, never slower.
import { seededRandom } from "../accuracy/traffic.ts";

export interface Traffic {
  /** Requests per second of each key (identity) on this rule. */
  readonly keyRates: readonly number[];
  /** Isolates a key's requests are spread over, each request on one drawn at random. */
  readonly isolates: number;
  readonly rttMs: number;
  readonly objectsPerRule: number;
  readonly durationS: number;
  readonly seed: number;
}

export interface Load {
  readonly requestsPerS: number;
  readonly callsPerS: number;
  /** Calls per second of the busiest object, and the mean over the rule's objects. */
  readonly busiestObjectCallsPerS: number;
  readonly meanObjectCallsPerS: number;
}

/** Calls per second each object receives for this traffic. */
export function simulate(t: Traffic): Load {
  const random = seededRandom(t.seed);
  const objectCalls = new Array<number>(t.objectsPerRule).fill(0);
  let requests = 0;
  const endMs = t.durationS * 1000;
  t.keyRates.forEach((rate) => {
    if (rate <= 0) return;
    // A key's object: its digest's hash, uniform over the rule's objects.
    const object = Math.floor(random() * t.objectsPerRule);
    const busyUntil = new Map<number, number>();
    const queued = new Map<number, number>();
    let calls = 0;
    /** The calls an isolate's coalescer sends for this key up to `now`. */
    const advance = (isolate: number, now: number) => {
      let until = busyUntil.get(isolate) ?? -Infinity;
      let waiting = queued.get(isolate) ?? 0;
      // A call came back with requests queued behind it: they go at once as the next call.
      while (waiting > 0 && until <= now) {
        calls++;
        until += t.rttMs;
        waiting = 0;
      }
      busyUntil.set(isolate, until);
      queued.set(isolate, waiting);
    };
    for (let at = -Math.log(1 - random()) * (1000 / rate); at < endMs; at += -Math.log(1 - random()) * (1000 / rate)) {
      requests++;
      const isolate = Math.floor(random() * t.isolates);
      advance(isolate, at);
      if (at >= busyUntil.get(isolate)!) {
        calls++;
        busyUntil.set(isolate, at + t.rttMs);
      } else queued.set(isolate, queued.get(isolate)! + 1);
    }
    for (const isolate of busyUntil.keys()) advance(isolate, Infinity);
    objectCalls[object]! += calls;
  });
  const perS = (n: number) => n / t.durationS;
  const total = objectCalls.reduce((a, b) => a + b, 0);
  return {
    requestsPerS: perS(requests),
    callsPerS: perS(total),
    busiestObjectCallsPerS: perS(Math.max(...objectCalls)),
    meanObjectCallsPerS: perS(total / t.objectsPerRule),
  };
}

/**
 * The largest multiple of `traffic`'s rates at which the busiest object stays within
 * `perObjectLimit` calls per second (bisection over the multiple; the load grows with it).
 */
export function ceiling(traffic: Traffic, perObjectLimit = 1000, steps = 16): { scale: number; load: Load } {
  let low = 0;
  let high = 1;
  while (simulate({ ...traffic, keyRates: traffic.keyRates.map((r) => r * high) }).busiestObjectCallsPerS <= perObjectLimit) {
    low = high;
    high *= 2;
  }
  for (let i = 0; i < steps; i++) {
    const mid = (low + high) / 2;
    if (simulate({ ...traffic, keyRates: traffic.keyRates.map((r) => r * mid) }).busiestObjectCallsPerS <= perObjectLimit) low = mid;
    else high = mid;
  }
  return { scale: low, load: simulate({ ...traffic, keyRates: traffic.keyRates.map((r) => r * low) }) };
}

/**
 * Calls per second one key's requests make from one isolate, in the round-trip model: a Poisson
 * stream at `rate` per second, one call in flight. Each call is busy one round trip; the next call
 * starts when it returns if anything arrived meanwhile, else at the next arrival. Mean cycle:
 * r + P(no arrival in r) / rate, one call per cycle.
 */
export function callsPerSecond(rate: number, rttMs: number): number {
  if (rate <= 0) return 0;
  const r = rttMs / 1000;
  return 1 / (r + Math.exp(-rate * r) / rate);
}
