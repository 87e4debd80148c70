// Pure: a run's figures per (mix, round trip, K, target), the per-1,000 and per-million math, and
// the printed table.
import { textTable } from "../../tools/kit/report.ts";
import { percentiles } from "../../tools/loadtest/analysis.ts";
import { dollarsPerMillion, type Dollars } from "./prices.ts";
import { rttLabel, type Rtt } from "./rtt.ts";

/** What one (mix, round trip, K, target) run measured. */
export interface Measured {
  readonly mix: string;
  readonly rtt: Rtt;
  readonly k: number;
  readonly target: "gateway" | "bare";
  /** Client-observed latency of every answered request, ms. */
  readonly latenciesMs: readonly number[];
  readonly admitted: number;
  readonly denied: number;
  /** No answer or a 5xx. */
  readonly failed: number;
  readonly wallMs: number;
  /** CPU ms of the serving workerd over the run; undefined when it could not be read. */
  readonly cpuMs: number | undefined;
  readonly objectCalls: number;
  /** Of those, calls to counter objects. */
  readonly counterCalls: number;
  /** Distinct objects the isolates called. */
  readonly objectsTouched: number;
  /** Alarm invocations of the objects during the run (each a billed object request). */
  readonly alarms: number;
  /** Billed object time, ms: per object the union of its calls and alarms (bench/edge/duration.ts). */
  readonly busyMs: number;
  readonly rowsRead: number;
  readonly rowsWritten: number;
  /** The calls by binding (COUNTERS, OVERRIDES, METRICS) and the rows by object class, for the JSON. */
  readonly callsByBinding?: Readonly<Record<string, number>>;
  readonly rowsByClass?: Readonly<Record<string, { readonly rowsRead: number; readonly rowsWritten: number }>>;
}

export interface Row {
  readonly measured: Measured;
  readonly requests: number;
  readonly p50: number | null;
  readonly p95: number | null;
  readonly p99: number | null;
  /** Added over the bare Worker's same percentile in the same mix and K. */
  readonly added: { readonly p50: number | null; readonly p95: number | null; readonly p99: number | null };
  readonly callsPer1000: number;
  readonly counterCallsPer1000: number;
  readonly rowsWrittenPer1000: number;
  readonly rowsReadPer1000: number;
  readonly alarmsPer1000: number;
  readonly cpuMsPerRequest: number | undefined;
  /** Object duration billed as the objects were busy (docs/edge-cost.md: the model the $ column uses). */
  readonly dollars: Dollars;
  /** The same with every touched object active for the whole run: the upper bound. */
  readonly dollarsUpper: Dollars;
}

const per1000 = (n: number, requests: number) => (requests === 0 ? 0 : (1000 * n) / requests);
const minus = (a: number | null, b: number | null) => (a === null || b === null ? null : a - b);

/**
 * Object duration per request: every object touched counted active for the whole run (an upper
 * bound: deployed, an object idle between calls can hibernate).
 */
export function objectActiveSecondsPerRequest(m: Pick<Measured, "objectsTouched" | "wallMs">, requests: number): number {
  return requests === 0 ? 0 : (m.objectsTouched * m.wallMs) / 1000 / requests;
}

/** Object duration per request as billed: the objects' busy time (bench/edge/duration.ts) over the run's requests. */
export function objectBusySecondsPerRequest(m: Pick<Measured, "busyMs">, requests: number): number {
  return requests === 0 ? 0 : m.busyMs / 1000 / requests;
}

export function rowOf(m: Measured, bare: Measured | undefined): Row {
  const requests = m.admitted + m.denied + m.failed;
  const p = percentiles(m.latenciesMs);
  const b = bare ? percentiles(bare.latenciesMs) : { p50: null, p95: null, p99: null };
  const cpuMsPerRequest = m.cpuMs === undefined || requests === 0 ? undefined : m.cpuMs / requests;
  const work = {
    workerRequests: 1,
    cpuMs: cpuMsPerRequest ?? 0,
    objectCalls: requests === 0 ? 0 : (m.objectCalls + m.alarms) / requests,
    rowsRead: requests === 0 ? 0 : m.rowsRead / requests,
    rowsWritten: requests === 0 ? 0 : m.rowsWritten / requests,
  };
  const dollars = dollarsPerMillion({ ...work, objectActiveSeconds: objectBusySecondsPerRequest(m, requests) });
  const dollarsUpper = dollarsPerMillion({ ...work, objectActiveSeconds: objectActiveSecondsPerRequest(m, requests) });
  return {
    measured: m,
    requests,
    p50: p.p50,
    p95: p.p95,
    p99: p.p99,
    added: { p50: minus(p.p50, b.p50), p95: minus(p.p95, b.p95), p99: minus(p.p99, b.p99) },
    callsPer1000: per1000(m.objectCalls, requests),
    counterCallsPer1000: per1000(m.counterCalls, requests),
    rowsWrittenPer1000: per1000(m.rowsWritten, requests),
    rowsReadPer1000: per1000(m.rowsRead, requests),
    alarmsPer1000: per1000(m.alarms, requests),
    cpuMsPerRequest,
    dollars,
    dollarsUpper,
  };
}

const sameRtt = (a: Rtt, b: Rtt) => JSON.stringify(a) === JSON.stringify(b);

/** Every gateway run beside the bare Worker's run paired with it: same mix, K and round trip. */
export function rowsOf(measured: readonly Measured[]): Row[] {
  const bareFor = (m: Measured) => measured.find((b) => b.target === "bare" && b.mix === m.mix && b.k === m.k && sameRtt(b.rtt, m.rtt));
  return measured.map((m) => rowOf(m, m.target === "bare" ? m : bareFor(m)));
}

const ms = (v: number | null) => (v === null ? "-" : (+v.toFixed(1)).toString());
const fixed = (v: number | undefined, digits: number) => (v === undefined ? "-" : v.toFixed(digits));

const HEAD = [
  "mix",
  "RTT",
  "K",
  "target",
  "sent",
  "2xx/429/fail",
  "p50",
  "p99",
  "+p50",
  "+p95",
  "+p99",
  "counter calls/1k",
  "all calls/1k",
  "rows w/1k",
  "rows r/1k",
  "alarms/1k",
  "CPU ms/req",
  "$/M",
  "$/M upper",
];

export function renderTable(rows: readonly Row[]): string {
  return textTable({
    head: HEAD,
    rows: rows.map((r) => {
      const m = r.measured;
      return [
        m.mix,
        m.target === "bare" ? `(${rttLabel(m.rtt)})` : rttLabel(m.rtt),
        String(m.k),
        m.target,
        String(r.requests),
        `${m.admitted}/${m.denied}/${m.failed}`,
        ms(r.p50),
        ms(r.p99),
        ms(r.added.p50),
        ms(r.added.p95),
        ms(r.added.p99),
        r.counterCallsPer1000.toFixed(0),
        r.callsPer1000.toFixed(0),
        r.rowsWrittenPer1000.toFixed(0),
        r.rowsReadPer1000.toFixed(0),
        r.alarmsPer1000.toFixed(0),
        fixed(r.cpuMsPerRequest, 2),
        r.dollars.total.toFixed(2),
        r.dollarsUpper.total.toFixed(2),
      ];
    }),
  });
}
