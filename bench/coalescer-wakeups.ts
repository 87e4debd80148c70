// npm run bench:coalescer: what waiting behind a call costs, side by side in one run: the 1 ms
// polling the Coalescer used to do (kept below as the baseline, only here) and following the call
// ahead with one deadline timer (src/core/limiter/coalescer.ts, docs/counting.md).
//
//   npm run bench:coalescer [-- --requests 1000 --call-ms 200 --rounds 3]
//
// `requests` requests for one counter join at once; the first is sent, the others queue behind its
// `call-ms` call and then go together as the second call (also `call-ms`). Figures, not a test:
// - in Node (this process, real timers): timer callbacks run, times a waiting request resumed,
//   this process's CPU (user+system) and event-loop utilisation over the run;
// - in workerd (Miniflare, on the Worker's compatibility date, so
//   handle_cross_request_promise_resolution is on as deployed): each request a request of its own,
//   timer callbacks counted in the Worker, CPU of the workerd processes (until quiet). Requests
//   reach workerd over some ms, so there the first call is held until all have arrived, then
//   takes `call-ms`: a waiting request also waits out the others' arrival.
// Medians over `rounds`, each variant once per round.
import { readFile, mkdtemp, rm, writeFile } from "node:fs/promises";
import { stripTypeScriptTypes } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { Coalescer } from "../src/core/limiter/coalescer.ts";
import { cpuMs } from "./gateway/processes.ts";
import { startModuleWorker } from "./module-worker.ts";
import { AFTER_RUN, waitForQuiet } from "./gateway/quiet.ts";
import { median } from "./gateway/stats.ts";
import { commandOptions, numberOption, parseOptions, WHOLE_FROM_1 } from "../tools/kit/args.ts";

// --- polling baseline: the Coalescer as it was before (commit 22d1f81), its logic unchanged ---
/** Baseline only: each queued request checks its slot every `pollMs` on a timer of its own. */
export class PollingCoalescer<I extends { readonly counter: string }, R> {
  readonly #groups = new Map<string, { sending: Set<{ deadline: number; counters: Set<string> }>; queue: PollingSlot<I, R>[] }>();
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #now: () => number;
  readonly #pollMs: number;
  readonly #maxCallsInFlight: number;

  constructor(options: { sleep: (ms: number) => Promise<void>; now: () => number; pollMs?: number; maxCallsInFlight?: number }) {
    this.#sleep = options.sleep;
    this.#now = options.now;
    this.#pollMs = options.pollMs ?? 1;
    this.#maxCallsInFlight = Math.max(1, options.maxCallsInFlight ?? 1);
  }

  async join(key: string, item: I, timeoutMs: number, send: (items: readonly I[]) => Promise<R[]>): Promise<R> {
    let group = this.#groups.get(key);
    if (!group) this.#groups.set(key, (group = { sending: new Set(), queue: [] }));
    const slot = { state: "queued", item } as PollingSlot<I, R>;
    group.queue.push(slot);
    for (;;) {
      if (slot.state === "answered") return slot.result;
      if (slot.state === "failed") throw slot.error;
      const now = this.#now();
      for (const call of group.sending) if (call.deadline <= now) group.sending.delete(call);
      if (slot.state === "queued" && group.sending.size < this.#maxCallsInFlight) {
        const busy = new Set<string>();
        for (const call of group.sending) for (const counter of call.counters) busy.add(counter);
        if (!busy.has(slot.item.counter)) return this.#send(key, group, slot, now + timeoutMs, send, busy);
      }
      if (slot.state === "sent" && slot.deadline <= now) throw new Error(`counter did not answer within ${timeoutMs} ms`);
      await this.#sleep(this.#pollMs);
    }
  }

  async #send(
    key: string,
    group: { sending: Set<{ deadline: number; counters: Set<string> }>; queue: PollingSlot<I, R>[] },
    own: PollingSlot<I, R>,
    deadline: number,
    send: (items: readonly I[]) => Promise<R[]>,
    busy: ReadonlySet<string>,
  ): Promise<R> {
    const batch: PollingSlot<I, R>[] = [];
    let kept = 0;
    for (const slot of group.queue) {
      if (busy.has(slot.item.counter)) group.queue[kept++] = slot;
      else batch.push(slot);
    }
    group.queue.length = kept;
    const items = batch.map((slot) => slot.item);
    for (const slot of batch) Object.assign(slot, { state: "sent", deadline });
    const sending = { deadline, counters: new Set(items.map((item) => item.counter)) };
    group.sending.add(sending);
    try {
      const results = await send(items);
      batch.forEach((slot, i) => Object.assign(slot, { state: "answered", result: results[i] }));
    } catch (error) {
      for (const slot of batch) Object.assign(slot, { state: "failed", error });
    } finally {
      group.sending.delete(sending);
      if (group.sending.size === 0 && group.queue.length === 0 && this.#groups.get(key) === group) this.#groups.delete(key);
    }
    if (own.state === "answered") return own.result;
    throw (own as { error: unknown }).error;
  }
}
type PollingSlot<I, R> = { readonly item: I } & (
  { state: "queued" } | { state: "sent"; deadline: number } | { state: "answered"; result: R } | { state: "failed"; error: unknown }
);
// --- end of polling baseline ---

const USAGE = `usage: npm run bench:coalescer -- [--requests N] [--call-ms MS] [--rounds N]

Timer wake-ups, resume times and CPU of requests queued behind one counter call, polling against
following the call ahead, in Node and in workerd.

  --requests N    requests joining one counter at once (default 1000)
  --call-ms MS    how long each counter call takes (default 200)
  --rounds N      rounds, each variant once per round (default 3)`;

const { requests, callMs, rounds } = commandOptions(
  "bench:coalescer",
  (argv) => {
    const { values } = parseOptions(argv, {
      requests: { type: "string" },
      "call-ms": { type: "string" },
      rounds: { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    return {
      requests: numberOption("requests", values.requests, 1000, WHOLE_FROM_1),
      callMs: numberOption("call-ms", values["call-ms"], 200, WHOLE_FROM_1),
      rounds: numberOption("rounds", values.rounds, 3, WHOLE_FROM_1),
      help: values.help ?? false,
    };
  },
  USAGE,
);
const TIMEOUT_MS = 5_000;
const VARIANTS = ["polling", "following"] as const;
type Variant = (typeof VARIANTS)[number];
interface Figures {
  timerCallbacks: number;
  resumed: number;
  cpuMs: number;
  eventLoop?: number;
  wallMs: number;
}

/** One round in this process: `requests` joins at once, real timers, every timer callback counted. */
async function inNode(variant: Variant): Promise<Figures> {
  let timerCallbacks = 0;
  let resumed = 0;
  const timer = (wake: () => void, ms: number) =>
    setTimeout(() => {
      timerCallbacks++;
      wake();
    }, ms);
  const now = () => Date.now();
  type Item = { readonly counter: string };
  const coalescer =
    variant === "polling"
      ? new PollingCoalescer<Item, number>({ now, sleep: (ms) => new Promise<void>((resolve) => void timer(() => (resumed++, resolve()), ms)) })
      : new Coalescer<Item, number>({
          now,
          // Each wait arms one timer: armed = times a waiting request resumed (by its call or its timer).
          setTimeout: (wake, ms) => (resumed++, timer(wake, ms)),
          clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
        });
  let calls = 0;
  const send = async (items: readonly Item[]) => {
    const call = ++calls;
    await new Promise((resolve) => setTimeout(resolve, callMs)); // the object's latency: not counted
    return items.map(() => call);
  };
  const cpu = process.cpuUsage();
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  const answers = await Promise.all(Array.from({ length: requests }, () => coalescer.join("object", { counter: "c" }, TIMEOUT_MS, send)));
  const wallMs = performance.now() - started;
  const used = process.cpuUsage(cpu);
  if (answers.filter((call) => call === 2).length !== requests - 1) throw new Error(`${variant}: expected one call then one for the other ${requests - 1}`);
  return { timerCallbacks, resumed, cpuMs: (used.user + used.system) / 1000, eventLoop: performance.eventLoopUtilization(loop).utilization, wallMs };
}

/** The Worker for the workerd half: both coalescers, timers counted, the object's latency a timer of the sender's. */
const WORKER = `
import { Coalescer } from "./coalescer.js";
import { PollingCoalescer } from "./polling.js";
let timerCallbacks = 0;
let resumed = 0;
const timer = (wake, ms) => setTimeout(() => { timerCallbacks++; wake(); }, ms);
const now = () => Date.now();
const coalescers = {
  polling: new PollingCoalescer({ now, sleep: (ms) => new Promise((resolve) => void timer(() => { resumed++; resolve(); }, ms)) }),
  following: new Coalescer({ now, setTimeout: (wake, ms) => { resumed++; return timer(wake, ms); }, clearTimeout: (handle) => clearTimeout(handle) }),
};
let calls = 0;
let arrived = 0;
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms)); // not counted: the object's side
const send = async (items) => {
  const call = ++calls;
  // Requests from the client arrive over some ms: the first call is held until all have, so all
  // queue behind it, as in the Node half.
  if (call === 1) while (arrived < ${requests}) await pause(2);
  await pause(${callMs});
  return items.map(() => call);
};
export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === "/stats") {
      const stats = { timerCallbacks, resumed };
      timerCallbacks = resumed = calls = arrived = 0;
      return Response.json(stats);
    }
    const variant = url.pathname.slice(1);
    if (variant === "none") return new Response("2"); // the requests alone, no wait
    arrived++;
    try {
      const call = await coalescers[variant].join(url.searchParams.get("object"), { counter: "c" }, ${TIMEOUT_MS}, send);
      return new Response(String(call));
    } catch (error) {
      return new Response(String(error), { status: 500 });
    }
  },
};`;

/** Type-stripped JavaScript of a TypeScript file, or of the part of it between two marker lines. */
async function javascript(path: string, between?: [string, string]): Promise<string> {
  let source = await readFile(path, "utf8");
  if (between) source = source.slice(source.indexOf(between[0]), source.indexOf(between[1]));
  return stripTypeScriptTypes(source);
}

async function inWorkerd(): Promise<Record<Variant | "none", Figures[]>> {
  const here = dirname(fileURLToPath(import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), "coalescer-wakeups-"));
  await writeFile(join(dir, "worker.mjs"), WORKER);
  await writeFile(join(dir, "coalescer.js"), await javascript(join(here, "../src/core/limiter/coalescer.ts")));
  await writeFile(join(dir, "polling.js"), await javascript(fileURLToPath(import.meta.url), ["// --- polling baseline:", "// --- end of polling baseline"]));
  const { mf, pids } = await startModuleWorker({
    name: "coalescer-wakeups",
    dir,
    modules: ["worker.mjs", "coalescer.js", "polling.js"],
    compatibilityDate: "2026-10-30",
    readyPath: "/stats",
  });
  const figures: Record<Variant | "none", Figures[]> = { none: [], polling: [], following: [] };
  try {
    for (let round = 0; round <= rounds; round++) {
      for (const variant of ["none", ...VARIANTS] as const) {
        await waitForQuiet(pids, AFTER_RUN);
        await (await mf.dispatchFetch("http://localhost/stats")).text();
        const before = cpuMs(pids);
        const started = performance.now();
        const object = `${variant}-${round}`;
        const answers = await Promise.all(
          Array.from({ length: requests }, async () => {
            const res = await mf.dispatchFetch(`http://localhost/${variant}?object=${object}`);
            return `${res.status} ${await res.text()}`;
          }),
        );
        const wallMs = performance.now() - started;
        await waitForQuiet(pids, AFTER_RUN);
        const after = cpuMs(pids);
        const stats = (await (await mf.dispatchFetch("http://localhost/stats")).json()) as { timerCallbacks: number; resumed: number };
        if (before === undefined || after === undefined) throw new Error("cannot read the workerd processes' CPU time (/proc)");
        const secondCall = answers.filter((a) => a === "200 2").length;
        if (secondCall !== (variant === "none" ? requests : requests - 1))
          throw new Error(`workerd ${variant}: ${[...new Set(answers)].slice(0, 3).join(" | ")}`);
        // Round 0 warms the isolate up and is not kept.
        if (round > 0) figures[variant].push({ ...stats, cpuMs: after - before, wallMs });
      }
    }
  } finally {
    await mf.dispose();
    await rm(dir, { recursive: true, force: true });
  }
  return figures;
}

function print(where: string, figures: Record<Variant, Figures[]> & { none?: Figures[] }): void {
  const med = (variant: Variant | "none", pick: (f: Figures) => number | undefined) =>
    median((figures[variant] ?? []).map(pick).filter((v): v is number => v !== undefined));
  const rows: [string, (f: Figures) => number | undefined, (v: number) => string][] = [
    ["timer callbacks", (f) => f.timerCallbacks, (v) => v.toFixed(0)],
    ["waiting requests resumed", (f) => f.resumed, (v) => v.toFixed(0)],
    [where === "node" ? "CPU of this process (ms)" : "CPU of workerd (ms)", (f) => f.cpuMs, (v) => v.toFixed(0)],
    ["event-loop utilisation", (f) => f.eventLoop, (v) => `${(v * 100).toFixed(1)}%`],
    ["wall time (ms)", (f) => f.wallMs, (v) => v.toFixed(0)],
  ];
  console.log(
    `\n${where}: ${requests} requests for one counter, a ${callMs} ms call ahead of them (and ${callMs} ms for theirs); median of ${rounds} round(s)`,
  );
  const none = figures.none;
  console.log(`  ${"".padEnd(28)}${"polling (1 ms)".padStart(18)}${"following".padStart(14)}${none ? "no wait (requests alone)".padStart(28) : ""}`);
  for (const [label, pick, format] of rows) {
    if (figures.polling.every((f) => pick(f) === undefined)) continue;
    const alone = none ? format(med("none", pick)).padStart(28) : "";
    console.log(`  ${label.padEnd(28)}${format(med("polling", pick)).padStart(18)}${format(med("following", pick)).padStart(14)}${alone}`);
  }
}

const node: Record<Variant, Figures[]> = { polling: [], following: [] };
for (let round = 0; round <= rounds; round++) {
  for (const variant of VARIANTS) {
    const figures = await inNode(variant);
    if (round > 0) node[variant].push(figures); // round 0 warms the JIT up
  }
}
print("node", node);
print("workerd", await inWorkerd());
