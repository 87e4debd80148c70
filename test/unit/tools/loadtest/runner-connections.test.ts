// Each client of each row has connections of its own (runner.ts, clientConnections): a burst goes
// out at once, and no row's request waits in the tool behind another row's unanswered ones. A
// stand-in for one gateway holds every answer until it has seen a whole burst of row 5 (100 at
// once) and a request of row 12's steady client on the same origin, then answers everything. With
// one pool of 64 connections per gateway (the runner before) 36 of the burst and row 12's requests
// stayed in the tool, the stand-in never saw them, and this test ran into its timeout.
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { hostedApiClassifier } from "../../../../src/core/rules/hosted-api.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import { planRun, type Plan, type PlanOptions } from "../../../../tools/loadtest/plan.ts";
import { clientConnections, executePlan, STEADY_WIRE_S, steadyInFlightCap } from "../../../../tools/loadtest/runner.ts";
import { publishedRow } from "../../../support/rows.ts";

const BURST = 100;

const options: PlanOptions = {
  ...DEFAULTS,
  region: "us",
  timeScale: 1,
  windows: 1,
  minPhaseS: 0,
  budget: 400,
  burstCap: BURST,
  varyIp: true,
  runId: "conn",
};

/** Row 5 sends one burst at once and nothing else; row 12 only its steady client, for a second. */
function twoRowsOnOneGateway(): Plan {
  const plan = planRun([publishedRow(5), publishedRow(12)], options, hostedApiClassifier);
  const skip = { kind: "skip" as const, reason: "not in this test" };
  const rules = plan.rules.map((r) =>
    r.rule.id === 5
      ? { ...r, startMs: 0, retry: skip, bursts: { size: BURST, offsetsMs: [0] }, steady: { ...r.steady, durationMs: 0 }, durationMs: 1000 }
      : { ...r, startMs: 0, retry: skip, bursts: { ...r.bursts, offsetsMs: [] }, steady: { ...r.steady, offsetMs: 0, durationMs: 1000 }, durationMs: 1000 },
  );
  return { ...plan, rules, durationMs: 1000 };
}

describe("each client's own connections", () => {
  it("sizes them by what the client sends at once, a steady client's by a second of its rate", () => {
    const [row5, row12] = twoRowsOnOneGateway().rules;
    expect(clientConnections(row5!, "burst", 0)).toBe(BURST);
    // Row 12 sends 2.1/s: at least 4 connections, within its in-flight cap.
    expect(row12!.steady.rate).toBeCloseTo(2.1);
    expect(clientConnections(row12!, "steady", steadyInFlightCap(row12!))).toBe(4);
    expect(clientConnections(row12!, "steady", 3)).toBe(3);
    // Row 16 at scale 1: 10000 per 60 s at load 1.4 is 233/s: 234 connections, not its in-flight cap of 2048.
    const busy = planRun([publishedRow(16)], { ...options, ruleRateCap: 400 }, hostedApiClassifier).rules[0]!;
    expect(steadyInFlightCap(busy)).toBe(2048);
    expect(clientConnections(busy, "steady", steadyInFlightCap(busy))).toBe(Math.ceil(busy.steady.rate * STEADY_WIRE_S));
    const filled = planRun([publishedRow(12)], options, hostedApiClassifier).rules[0]!;
    expect(filled.retry).toMatchObject({ kind: "run", concurrency: 17 });
    expect(clientConnections(filled, "retry", 0)).toBe(17);
  });

  it("sends a whole burst at once, and another row's request beside it, with every answer held", { timeout: 60_000 }, async () => {
    const plan = twoRowsOnOneGateway();
    const rowOf = (key: string | string[] | undefined) => Number(/-r(\d+)-/.exec(String(key))?.[1]);
    const held: (() => void)[] = [];
    let burstArrived = 0;
    let otherArrived = false;
    let released = false;
    let release: (seen: { burst: number; other: boolean }) => void = () => undefined;
    const bothSeen = new Promise<{ burst: number; other: boolean }>((resolve) => (release = resolve));
    const server = createServer((req, res) => {
      const row = publishedRow(rowOf(req.headers["x-api-key"]));
      const { count, interval } = row.limits.us;
      const answer = () => {
        res.writeHead(200, { "ratelimit-policy": `"${row.name}";q=${count};w=${interval}`, ratelimit: `"${row.name}";r=${count - 1};t=${interval}` });
        res.end("{}");
      };
      if (released) return answer();
      held.push(answer);
      if (row.id === 5) burstArrived++;
      else otherArrived = true;
      if (burstArrived === BURST && otherArrived) {
        released = true;
        release({ burst: burstArrived, other: otherArrived });
        for (const f of held.splice(0)) f();
      }
    });
    // Any free port: two runs of the suite side by side (or npm start's 18110-18111) never clash.
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const execution = executePlan({ baseUrlOf: () => new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), plan, pipelining: 1 });
      // Every request of the burst and one of row 12 reached the gateway while none was answered.
      expect(await bothSeen).toEqual({ burst: BURST, other: true });
      const answers = await execution.done;
      expect(answers.get("us:5")!.filter((a) => a.kind === "burst")).toHaveLength(BURST);
      expect(answers.get("us:12")!.length).toBeGreaterThan(0);
      expect([...answers.values()].flat().every((a) => a.error === undefined && a.status === 200)).toBe(true);
    } finally {
      server.close();
    }
  });
});
