// Storage writes of the counter object's persistence policy (ReservationLedger) against the
// baseline of one write per admitted request, for steady traffic at a few published limits.
// Deterministic (simulated clock), so the figures are the same on every machine.
import { Counter, MemoryCounterStore } from "../src/core/limiter/index.ts";

const SECONDS = 20;
const scenarios = [
  { label: "row 11, 6000/10 s at 600 req/s", count: 6000, intervalMs: 10_000, perSecond: 600 },
  { label: "row 7, 2000/10 s at 200 req/s", count: 2000, intervalMs: 10_000, perSecond: 200 },
  { label: "row 12, 15/10 s at 1.5 req/s", count: 15, intervalMs: 10_000, perSecond: 1.5 },
  { label: "row 29, 100/60 s at 1 req/s", count: 100, intervalMs: 60_000, perSecond: 1 },
];

console.log(`storage writes over ${SECONDS} s of steady traffic (one write per admission = baseline)`);
for (const { label, count, intervalMs, perSecond } of scenarios) {
  // The counter object's own loop (src/core/limiter/counter.ts) over an in-memory store.
  const store = new MemoryCounterStore();
  const counter = new Counter(store, "bench");
  let admitted = 0;
  let maxRecords = 0;
  for (let i = 0; i < SECONDS * perSecond; i++) {
    const now = Math.floor((i * 1000) / perSecond);
    if (!counter.decide({ count, intervalMs }, 1, now).verdicts[0]!.allowed) continue;
    admitted++;
    maxRecords = Math.max(maxRecords, store.get("bench")?.reservations.length ?? 0);
  }
  const writes = store.writes;
  const ratio = writes === 0 ? "n/a" : `${(admitted / writes).toFixed(1)}x fewer`;
  console.log(
    `  ${label.padEnd(34)} baseline ${String(admitted).padStart(6)} writes, ledger ${String(writes).padStart(4)} (${ratio}), ` +
      `${(writes / SECONDS).toFixed(1)} writes/s, at most ${maxRecords} records stored`,
  );
}
