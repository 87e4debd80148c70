// What counting costs a client spread over isolates when the counter object is a round trip away:
// object calls per 1,000 requests and how many requests wait for one, with the Counter the object
// runs and the LeaseBook an isolate keeps, on a driven clock (no real time: each call is decided
// half a round trip after it is sent and answered a round trip after). The figures in
// docs/counting.md ("What a client spread over isolates costs") come from this file's table.
import { describe, expect, it } from "vitest";
import { Counter, LeaseBook, MemoryCounterStore, type CounterAnswer, type LeaseRequest, type Limit } from "../../../../src/core/limiter/index.ts";
import { maxInAnyWindow } from "./reference-model.ts";

const ROW_25: Limit = { count: 1_000, intervalMs: 10_000 };

interface Figures {
  readonly requests: number;
  readonly calls: number;
  readonly waited: number;
  readonly refused: number;
  readonly fullest: number;
  /** Each request's wait (ms) from its arrival to its answer, sorted. */
  readonly waits: readonly number[];
}

/** One thing an isolate sends its counter object: a request to decide (sent at `t`), a renewal or a give-back. */
type Item = { kind: "hits"; t: number } | { kind: "renew" | "give-back" };

/**
 * `requests` requests of one client at `share` of the limit's rate, round robin over `isolates`,
 * each object call taking `rttMs` there and back, as the gateway's Counting makes them: one call
 * in flight per isolate (later requests queue behind it and are decided on the lease it brings),
 * a lease renewed in the background when it is about to run out, every lease given back at its
 * end, and a request the object tells to wait for lent units asked again when they are due.
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
  const renewing = new Array<boolean>(isolates).fill(false);
  const queued: Item[][] = Array.from({ length: isolates }, () => []);
  const admitted: number[] = [];
  const waits: number[] = [];
  let calls = 0;
  let waited = 0;
  let refused = 0;
  const answer = (t: number, now: number) => waits.push(now - t);
  const call = (i: number, sentAt: number, items: Item[]) => {
    calls++;
    inFlight[i] = true;
    const hits = items.filter((item) => item.kind === "hits").length;
    const kind = hits > 0 ? "hits" : items.some((item) => item.kind === "renew") ? "renew" : "give-back";
    const request: LeaseRequest = books[i]!.request("k", sentAt, kind);
    let decided: CounterAnswer;
    at(sentAt + rttMs / 2, () => {
      decided = counter.decide(limit, hits, sentAt + rttMs / 2, { lease: request });
      for (const v of decided.verdicts) if (v.allowed) admitted.push(sentAt + rttMs / 2);
    });
    at(sentAt + rttMs, () => {
      const now = sentAt + rttMs;
      books[i]!.accept("k", limit, decided.lease, sentAt, request);
      if (decided.lease) {
        const endsAt = sentAt + decided.lease.spanMs + 1;
        at(endsAt, () => {
          if (!books[i]!.owes("k", endsAt)) return;
          if (inFlight[i]) queued[i]!.push({ kind: "give-back" });
          else call(i, endsAt, [{ kind: "give-back" }]);
        });
      }
      inFlight[i] = false;
      let v = 0;
      for (const item of items) {
        if (item.kind === "renew") renewing[i] = false;
        if (item.kind !== "hits") continue;
        const verdict = decided.verdicts[v++]!;
        if (verdict.allowed) answer(item.t, now);
        else if (verdict.waitMs !== undefined) at(now + verdict.waitMs, () => arrive(i, item.t, now + verdict.waitMs!));
        else {
          refused++;
          answer(item.t, now);
        }
      }
      // What queued behind the call: on the new lease while it lasts, the rest in one call.
      const waiting = queued[i]!.splice(0);
      const rest: Item[] = [];
      for (const item of waiting) {
        if (item.kind === "hits" && rest.length === 0 && books[i]!.admit("k", limit, now)) {
          admitted.push(now);
          answer(item.t, now);
        } else rest.push(item);
      }
      if (rest.length > 0) call(i, now, rest);
    });
  };
  /** A request of the client (sent at `t`) reaching isolate `i` at `now`. */
  const arrive = (i: number, t: number, now: number) => {
    if (inFlight[i]) {
      waited++;
      queued[i]!.push({ kind: "hits", t });
      return;
    }
    if (books[i]!.admit("k", limit, now)) {
      admitted.push(now);
      answer(t, now);
      if (!renewing[i] && books[i]!.renewalDue("k", now, Math.max(20, 3 * rttMs))) {
        renewing[i] = true;
        call(i, now, [{ kind: "renew" }]);
      }
      return;
    }
    waited++;
    call(i, now, [{ kind: "hits", t }]);
  };
  for (let n = 0; n < requests; n++) {
    const t = Math.round(n * gap);
    at(t, () => arrive(n % isolates, t, t));
  }
  while (events.length > 0) events.shift()!.run();
  admitted.sort((a, b) => a - b);
  waits.sort((a, b) => a - b);
  return { requests, calls, waited, refused, fullest: maxInAnyWindow(admitted, limit.intervalMs), waits };
}

/** The `q` quantile of sorted `values`. */
const quantile = (values: readonly number[], q: number) => values[Math.min(values.length - 1, Math.floor(q * values.length))] ?? 0;

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
          "wait p50 / p99 (ms)": `${quantile(figures.waits, 0.5)} / ${quantile(figures.waits, 0.99)}`,
        });
      });
    }
  }

  it("prints the table", () => {
    expect(rows).toHaveLength(12);
    console.log(
      [
        "| isolates | % of limit | object calls / 1,000 requests | requests waiting a round trip / 1,000 | wait p50 / p99 (ms) |",
        "|---|---|---|---|---|",
        ...rows.map((r) => `| ${Object.values(r).join(" | ")} |`),
      ].join("\n"),
    );
  });
});
