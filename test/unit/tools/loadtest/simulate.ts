// A gateway simulated with the real limiter classes, to produce the answers the load test would
// see: each request reaches the counter some latency after it was sent, is decided on the
// gateway's whole-millisecond clock, and its answer arrives some latency later.
import type { WindowAnswer } from "../../../../src/core/limiter/types.ts";
import type { Answer } from "../../../../tools/loadtest/answer.ts";

export interface Limiter {
  hit(now: number): WindowAnswer;
}

export interface Send {
  readonly sendMs: number;
  readonly kind?: Answer["kind"];
}

export interface Network {
  /** Latency to the counter, ms. */
  toGateway(): number;
  /** Latency of the answer, ms. */
  fromGateway(): number;
  /** The gateway's clock minus the tool's. */
  readonly clockOffsetMs: number;
}

export function simulate(limiter: Limiter, sends: readonly Send[], net: Network, identity = "who"): Answer[] {
  const decided = sends.map((s) => ({ ...s, at: s.sendMs + net.toGateway() })).sort((a, b) => a.at - b.at);
  return decided.map((s) => {
    const d = limiter.hit(Math.floor(s.at + net.clockOffsetMs));
    return {
      kind: s.kind ?? "steady",
      identity,
      sendMs: s.sendMs,
      recvMs: s.at + net.fromGateway(),
      status: d.allowed ? 200 : 429,
      remaining: d.remaining,
      ...(d.allowed ? {} : { retryAfterS: Math.max(1, Math.ceil((d.retryAt - Math.floor(s.at + net.clockOffsetMs)) / 1000)) }),
    };
  });
}

/** The tool's traffic shape: a jittered steady stream at `rate`/s plus bursts 2/3 W apart. */
export function toolTraffic(opts: {
  windowMs: number;
  count: number;
  rate: number;
  durationMs: number;
  burstSize: number;
  bursts: number;
  random: () => number;
}): { steady: Send[]; burst: Send[] } {
  const steady: Send[] = [];
  const slot = 1000 / opts.rate;
  for (let n = 0; (n + 1) * slot <= opts.durationMs; n++) steady.push({ sendMs: (n + opts.random()) * slot, kind: "steady" });
  const burst: Send[] = [];
  for (let b = 0; b < opts.bursts; b++) {
    for (let i = 0; i < opts.burstSize; i++) burst.push({ sendMs: (b * 2 * opts.windowMs) / 3 + i * 0.05, kind: "burst" });
  }
  return { steady, burst };
}
