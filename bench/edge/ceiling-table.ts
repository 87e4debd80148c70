// node bench/edge/ceiling-table.ts: the ceiling of one rule in one region (ceiling.ts), printed as
// docs/edge-cost.md quotes it. Seeded: the same table on every machine.
import { textTable } from "../../tools/kit/report.ts";
import { ceiling, simulate, type Traffic } from "./ceiling.ts";

const SOFT_LIMIT = 1000;
const rows: string[][] = [];

// Many keys at equal low rates, spread over many isolates: every request is its own call.
for (const objectsPerRule of [64, 128, 256])
  for (const rttMs of [1, 40]) {
    const traffic: Traffic = { keyRates: Array.from({ length: 10_000 }, () => 1), isolates: 256, rttMs, objectsPerRule, durationS: 4, seed: 11 };
    const { load } = ceiling(traffic, SOFT_LIMIT, 10);
    rows.push([
      `10,000 equal keys, 256 isolates`,
      String(objectsPerRule),
      `${rttMs} ms`,
      load.requestsPerS.toFixed(0),
      (load.callsPerS / load.requestsPerS).toFixed(2),
      load.busiestObjectCallsPerS.toFixed(0),
      load.meanObjectCallsPerS.toFixed(0),
    ]);
  }

// Heavy keys at row 11's whole limit (6000 per 10 s): how many before one object passes the limit.
for (const objectsPerRule of [64, 256])
  for (const isolates of [16, 64, 256]) {
    let keys = 1;
    let last = simulate({ keyRates: [600], isolates, rttMs: 40, objectsPerRule, durationS: 4, seed: 5 });
    for (; keys < 2000; keys++) {
      const load = simulate({ keyRates: Array.from({ length: keys + 1 }, () => 600), isolates, rttMs: 40, objectsPerRule, durationS: 4, seed: 5 });
      if (load.busiestObjectCallsPerS > SOFT_LIMIT) break;
      last = load;
    }
    rows.push([
      `keys at 600/s (row 11's limit), ${isolates} isolates`,
      String(objectsPerRule),
      "40 ms",
      `${last.requestsPerS.toFixed(0)} (${keys} keys)`,
      (last.callsPerS / last.requestsPerS).toFixed(2),
      last.busiestObjectCallsPerS.toFixed(0),
      last.meanObjectCallsPerS.toFixed(0),
    ]);
  }

console.log(
  textTable({
    head: ["traffic on one rule", "objects/rule", "RTT", "req/s at ceiling", "calls/req", "busiest obj calls/s", "mean obj calls/s"],
    rows,
  }),
);
