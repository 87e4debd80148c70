// The traffic patterns scenarios are made of: one at a time, many in flight, paced, and the
// retry of a 429 at its Retry-After. Isolates are chosen by a function of the request's number.
import { clientNow, sleepUntil, type Client } from "./client.ts";

export type Pick = (n: number) => number;

export const roundRobin =
  (isolates: number): Pick =>
  (n) =>
    n % isolates;

/** A seeded generator (mulberry32): a scenario's random spread is the same in every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const randomIsolate =
  (isolates: number, random: () => number): Pick =>
  () =>
    Math.floor(random() * isolates);

/**
 * One request at a time until one is refused (its index returned) or `max` were sent. `from`
 * numbers the requests for `pick` (a round robin carries on where it left off).
 */
export async function oneAtATime(client: Client, pick: Pick, max: number, from = 0): Promise<number | undefined> {
  for (let n = from; n < from + max; n++) {
    const { index, observation } = await client.send(pick(n));
    if (observation.status === 429) return index;
  }
  return undefined;
}

/** `total` requests, `concurrency` in flight at a time. */
export async function inFlight(client: Client, pick: Pick, total: number, concurrency: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < total) await client.send(pick(next++));
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, total) }, lane));
}

/** `total` requests, one every `periodMs` on a fixed schedule (not waiting for answers). */
export async function paced(client: Client, pick: Pick, total: number, periodMs: number): Promise<void> {
  const start = clientNow();
  const sent: Promise<unknown>[] = [];
  for (let n = 0; n < total; n++) {
    await sleepUntil(start + n * periodMs);
    sent.push(client.send(pick(n)));
  }
  await Promise.all(sent);
}

/**
 * Retries the 429 at `index` at its Retry-After; when the scenario ended on no clean 429, sends
 * one probe first (its 429, if any, is retried). Nothing else is in flight meanwhile.
 */
export async function retryLast429(client: Client, index: number | undefined, isolate: number, next: number): Promise<void> {
  let denied = index;
  if (denied === undefined) {
    const probe = await client.send(isolate);
    if (probe.observation.status !== 429) return;
    denied = probe.index;
  }
  await client.retry(denied, next);
}
