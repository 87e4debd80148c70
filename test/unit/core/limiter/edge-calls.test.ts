// What counting costs a client spread over isolates when the counter object is a round trip away:
// object calls per 1,000 requests and how many requests wait for one, with the Counter the object
// runs and the LeaseBook an isolate keeps, on a driven clock (no real time: each call is decided
// half a round trip after it is sent and answered a round trip after). The figures in
// docs/counting.md ("What a client spread over isolates costs") come from this file's table.
import { describe, expect, it } from "vitest";
import { Counter, LeaseBook, MemoryCounterStore, type LeaseGrant, type LeaseRequest, type Limit } from "../../../../src/core/limiter/index.ts";
import { maxInAnyWindow } from "./reference-model.ts";

const ROW_25: Limit = { count: 1_000, intervalMs: 10_000 };

interface Figures {
  readonly requests: number;
  readonly calls: number;
  readonly waited: number;
  readonly refused: number;
  readonly fullest: number;
}

/**
 * `requests` requests of one client at `share` of the limit's rate, round robin over `isolates`,
 * each object call taking `rttMs` there and back. An isolate with a call in flight queues its
 * requests behind it (as the Coalescer does) and decides them on the lease it brings, if any.
 */
function simulate(limit: Limit, isolates: number, share: number, rttMs: number, requests: number): Figures {
  const counter = new Counter(new MemoryCounterStore(), "k");
  const books = Array.from({ length: isolates }, (_, i) => new LeaseBook({ caller: `i${i}` }));
  const gap = limit.intervalMs / (limit.count * share);
  type Event = { at: number; seq: number; run: () => void };
  const events: Event[] = [];
  let seq = 0;
  const at = (t: number, run: () => void) => {
    events.push({ at: t, seq: seq++, run });
    events.sort((a, b) => a.at - b.at || a.seq - b.seq);
  };
  const inFlight = new Array<boolean>(isolates).fill(false);
  const queued: number[][] = Array.from({ length: isolates }, () => []);
  const admitted: number[] = [];
  let calls = 0;
  let waited = 0;
  let refused = 0;
  const call = (i: number, sentAt: number, hits: number) => {
    calls++;
    inFlight[i] = true;
    const request: LeaseRequest = books[i]!.request("k", sentAt);
    let answer: { verdicts: { allowed: boolean }[]; lease?: LeaseGrant };
    at(sentAt + rttMs / 2, () => {
      answer = counter.decide(limit, hits, sentAt + rttMs / 2, { lease: request });
      for (const v of answer.verdicts) if (v.allowed) admitted.push(sentAt + rttMs / 2);
      else refused++;
    });
    at(sentAt + rttMs, () => {
      books[i]!.accept("k", limit, answer.lease, sentAt, request);
      inFlight[i] = false;
      // Requests that queued behind the call: on the new lease while it lasts, the rest in one call.
      const waiting = queued[i]!.splice(0);
      let rest = 0;
      for (const t of waiting) {
        if (rest === 0 && books[i]!.admit("k", limit, sentAt + rttMs)) admitted.push(t);
        else rest++;
      }
      if (rest > 0) call(i, sentAt + rttMs, rest);
      // Each of them waited for the call ahead of it, lease or not.
      waited += waiting.length;
    });
  };
  for (let n = 0; n < requests; n++) {
    const t = Math.round(n * gap);
    const i = n % isolates;
    at(t, () => {
      if (inFlight[i]) {
        queued[i]!.push(t);
        return;
      }
      if (books[i]!.admit("k", limit, t)) {
        admitted.push(t);
        return;
      }
      waited++;
      call(i, t, 1);
    });
  }
  while (events.length > 0) events.shift()!.run();
  admitted.sort((a, b) => a - b);
  return { requests, calls, waited, refused, fullest: maxInAnyWindow(admitted, limit.intervalMs) };
}

describe("a client spread over isolates, a round trip from its counter object", () => {
  const rows: Record<string, string>[] = [];

  for (const isolates of [1, 4, 16, 64]) {
    for (const share of [0.1, 0.5, 0.9]) {
      it(`${isolates} isolates at ${share * 100}% of row 25 (1000 per 10 s), 40 ms round trips: exact, and what it costs`, () => {
        const figures = simulate(ROW_25, isolates, share, 40, 3_000);
        // Exact: never over, and a client at or below 90% never refused.
        expect(figures.fullest).toBeLessThanOrEqual(ROW_25.count);
        expect(figures.refused).toBe(0);
        rows.push({
          isolates: String(isolates),
          "% of limit": String(share * 100),
          "object calls / 1,000 requests": String(Math.round((1_000 * figures.calls) / figures.requests)),
          "requests waiting a round trip / 1,000": String(Math.round((1_000 * figures.waited) / figures.requests)),
        });
      });
    }
  }

  it("prints the table", () => {
    expect(rows).toHaveLength(12);
    console.log(["| isolates | % of limit | object calls / 1,000 requests | requests waiting a round trip / 1,000 |", "|---|---|---|---|", ...rows.map((r) => `| ${Object.values(r).join(" | ")} |`)].join("\n"));
  });
});
