import { test } from "vitest";
import { SlidingWindow } from "../src/core/limiter/sliding-window.ts";
import type { Limit, WindowAnswer } from "../src/core/limiter/types.ts";

/**
 * SlidingWindow.hit vs the naive sliding log (an array of timestamps,
 * `filter`ed on every request), fed the same arrival pattern. One benchmark
 * iteration = one request; the simulated clock advances per request, and both
 * limiters are warmed up to steady state first so a full window is measured.
 * Both return the same WindowAnswer, so the comparison is like for like.
 */

/** A limiter under test: decide one request at `now`. */
type Hit = (now: number) => WindowAnswer;

/** The textbook sliding log: obviously correct, but O(count) work per request. */
function naiveSlidingLog({ count, intervalMs }: Limit): Hit {
  let admitted: number[] = [];
  return (now) => {
    admitted = admitted.filter((t) => t > now - intervalMs);
    const allowed = admitted.length < count;
    if (allowed) admitted.push(now);
    const remaining = count - admitted.length;
    // Pushed in time order, so the oldest in-window admission is first.
    const resetAt = admitted.length === 0 ? now : admitted[0]! + intervalMs;
    return { allowed, limit: count, remaining, resetAt, retryAt: remaining > 0 ? now : resetAt };
  };
}

function slidingWindow(limit: Limit): Hit {
  const window = new SlidingWindow(limit);
  return (now) => window.hit(now);
}

/**
 * Wraps a limiter into a benchmark function that sends requests at
 * `perSecond`, after `warmupMs` of simulated traffic. `sink` keeps the
 * results observable so the engine cannot drop the work.
 */
function driver(hit: Hit, perSecond: number, warmupMs: number): () => void {
  let i = 0;
  let sink = 0;
  const next = (): void => {
    sink += hit(1_700_000_000_000 + Math.floor((i++ * 1000) / perSecond)).remaining;
  };
  while ((i * 1000) / perSecond < warmupMs) next();
  return () => {
    next();
    if (sink < 0) throw new Error("unreachable");
  };
}

const scenarios = [
  { name: "600 req/s against 6000/10s", limit: { count: 6000, intervalMs: 10_000 }, perSecond: 600 },
  { name: "100x flood (150 req/s) against 15/10s", limit: { count: 15, intervalMs: 10_000 }, perSecond: 150 },
];

const FAST = "SlidingWindow.hit";
const NAIVE = "naive sliding log (filter per request)";

for (const { name, limit, perSecond } of scenarios) {
  test(name, async ({ bench }) => {
    const warmupMs = 2 * limit.intervalMs;
    const results = await bench.compare(
      bench(FAST, driver(slidingWindow(limit), perSecond, warmupMs)),
      bench(NAIVE, driver(naiveSlidingLog(limit), perSecond, warmupMs)),
      { time: 1000 },
    );
    // vitest 5's table marks the fastest but prints no ratio, so say it here.
    const ratio = results.get(NAIVE).latency.mean / results.get(FAST).latency.mean;
    console.log(`${name}: ${FAST} is ${ratio.toFixed(2)}x faster than ${NAIVE}`);
  });
}
