// One run of `npm run bench:edge`: for each K a cluster of K gateway isolates sharing one owner's
// objects (bench/accuracy/cluster.ts) and one bare pass-through Worker; for each round trip and
// mix, the mix against both, with the objects' calls and rows and workerd's CPU counted around it.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildGateway, startCluster, type Cluster } from "../accuracy/cluster.ts";
import { clientNow, sleepUntil } from "../accuracy/client.ts";
import { targetFor, type Target } from "../accuracy/target.ts";
import { buildBundle } from "../gateway/build.ts";
import { withMiniflare } from "../gateway/serve-miniflare.ts";
import { TARGET_SPECS } from "../gateway/targets.ts";
import { emulatorWorkerOptions } from "../../tools/emulator-workers.ts";
import { GIVE_BACK_GRACE_MS, MAX_LEASE_MS } from "../../src/core/limiter/index.ts";
import type { EdgeOptions } from "./args.ts";
import { cpuMsOf, workerdPids } from "./cpu.ts";
import type { Mix, Send } from "./mixes.ts";
import { busyMs, type SpellsByObject } from "./duration.ts";
import type { Measured } from "./report.ts";
import type { Rtt } from "./rtt.ts";

export interface EdgeRun {
  readonly options: EdgeOptions;
  readonly measured: readonly Measured[];
}

type Answered = { status: number; ms: number };

/** Sends the schedule (each request at its time, none waiting on another) and collects the answers. */
async function drive(schedule: readonly Send[], send: (s: Send) => Promise<Response>): Promise<{ answers: Answered[]; wallMs: number }> {
  const start = clientNow() + 20;
  const pending: Promise<Answered>[] = [];
  for (const s of schedule) {
    await sleepUntil(start + s.atMs);
    const sentAt = clientNow();
    pending.push(
      send(s).then(
        async (r) => (await r.arrayBuffer(), { status: r.status, ms: clientNow() - sentAt }),
        () => ({ status: 0, ms: clientNow() - sentAt }),
      ),
    );
  }
  const answers = await Promise.all(pending);
  return { answers, wallMs: clientNow() - start };
}

function tally(answers: readonly Answered[]) {
  return {
    latenciesMs: answers.filter((a) => a.status !== 0).map((a) => a.ms),
    admitted: answers.filter((a) => a.status >= 200 && a.status < 400).length,
    denied: answers.filter((a) => a.status === 429).length,
    failed: answers.filter((a) => a.status === 0 || a.status >= 500 || (a.status >= 400 && a.status !== 429)).length,
  };
}

const headersFor = (runId: string, mix: Mix, s: Send, tag: string) => ({ "x-api-key": `edge-${runId}-${tag}-${mix.name}-${s.key}` });

/** The gateway's default OVERRIDES_REFRESH_MS: each isolate reads the overrides object as deployed. */
const DEPLOYED_OVERRIDES_REFRESH_MS = 5000;

/** Requests per isolate on a key of their own before a run counts: first-request work (module start, overrides read) is not what the mix measures. */
const WARM_UP = 2;

async function gatewayRun(cluster: Cluster, pids: number[], mix: Mix, target: Target, rtt: Rtt, options: EdgeOptions, runId: string): Promise<Measured> {
  const k = cluster.isolates;
  await Promise.all(Array.from({ length: k }, (_, i) => cluster.control(i, "/rtt", { rtt })));
  for (let n = 0; n < WARM_UP; n++)
    await Promise.all(
      Array.from({ length: k }, async (_, i) =>
        (await cluster.fetch(i, target.path, { method: target.method, headers: { "x-api-key": `edge-${runId}-warm-${i}` } })).arrayBuffer(),
      ),
    );
  // Leases of the warm-up and of the run before end and go back before the counts start: their
  // give-backs are theirs, and an object they touch would count as active for the whole run.
  await sleepUntil(clientNow() + MAX_LEASE_MS / options.timeScale + 2 * GIVE_BACK_GRACE_MS);
  await Promise.all(Array.from({ length: k }, (_, i) => cluster.control(i, "/rtt", { rtt, resetCalls: true })));
  await (await cluster.owner("/__accuracy/storage", { method: "POST" })).arrayBuffer();
  await (await cluster.owner("/__accuracy/duration", { method: "POST" })).arrayBuffer();
  const intervalMs = (target.intervalS * 1000) / options.timeScale;
  const schedule = mix.schedule(k, target.count, intervalMs, options.requests);
  const tag = `k${k}-${JSON.stringify(rtt).replace(/\W/g, "")}`;
  const cpuBefore = cpuMsOf(pids);
  const { answers, wallMs } = await drive(schedule, (s) =>
    cluster.fetch(s.isolate, target.path, { method: target.method, headers: headersFor(runId, mix, s, tag) }),
  );
  const cpuAfter = cpuMsOf(pids);
  const states = await Promise.all(Array.from({ length: k }, (_, i) => cluster.control(i, "/state")));
  const storage = (await (await cluster.owner("/__accuracy/storage")).json()) as Record<string, { rowsRead: number; rowsWritten: number }>;
  const duration = (await (await cluster.owner("/__accuracy/duration")).json()) as { alarms: Record<string, number>; busy: SpellsByObject };
  const touched = new Set(states.flatMap((s) => s.touched as string[]));
  const callsOf = (s: Record<string, unknown>) => s.objectCalls as Record<string, number>;
  const callsByBinding: Record<string, number> = {};
  for (const s of states) for (const [binding, n] of Object.entries(callsOf(s))) callsByBinding[binding] = (callsByBinding[binding] ?? 0) + n;
  const calls = Object.values(callsByBinding).reduce((a, b) => a + b, 0);
  const counterCalls = callsByBinding.COUNTERS ?? 0;
  const rows = Object.values(storage);
  return {
    mix: mix.name,
    rtt,
    k,
    target: "gateway",
    ...tally(answers),
    wallMs,
    cpuMs: cpuSpent(cpuBefore, cpuAfter),
    objectCalls: calls,
    counterCalls,
    objectsTouched: touched.size,
    alarms: Object.values(duration.alarms).reduce((a, b) => a + b, 0),
    busyMs: busyMs([...states.map((s) => s.busy as SpellsByObject), duration.busy]),
    rowsRead: rows.reduce((s, r) => s + r.rowsRead, 0),
    rowsWritten: rows.reduce((s, r) => s + r.rowsWritten, 0),
    callsByBinding,
    rowsByClass: Object.fromEntries(Object.entries(storage).map(([cls, r]) => [cls, { rowsRead: r.rowsRead, rowsWritten: r.rowsWritten }])),
  };
}

/** `rtt` only names the gateway run this one is paired with: the bare Worker calls no object. */
async function bareRun(url: URL, pids: number[], mix: Mix, target: Target, k: number, rtt: Rtt, options: EdgeOptions, runId: string): Promise<Measured> {
  const intervalMs = (target.intervalS * 1000) / options.timeScale;
  const schedule = mix.schedule(k, target.count, intervalMs, options.requests);
  for (let n = 0; n < WARM_UP; n++)
    await (await fetch(new URL(target.path, url), { method: target.method, headers: { "x-api-key": `edge-${runId}-warm` } })).arrayBuffer();
  const cpuBefore = cpuMsOf(pids);
  const { answers, wallMs } = await drive(schedule, (s) =>
    fetch(new URL(target.path, url), { method: target.method, headers: headersFor(runId, mix, s, `bare-k${k}-${JSON.stringify(rtt).replace(/\W/g, "")}`) }),
  );
  const cpuAfter = cpuMsOf(pids);
  return {
    mix: mix.name,
    rtt,
    k,
    target: "bare",
    ...tally(answers),
    wallMs,
    cpuMs: cpuSpent(cpuBefore, cpuAfter),
    objectCalls: 0,
    counterCalls: 0,
    objectsTouched: 0,
    alarms: 0,
    busyMs: 0,
    rowsRead: 0,
    rowsWritten: 0,
  };
}

/** The workerd processes started by `start` (the ones that were not there before). */
async function startedWith<T>(start: () => Promise<T>): Promise<{ value: T; pids: number[] }> {
  const before = new Set(workerdPids());
  const value = await start();
  return { value, pids: workerdPids().filter((p) => !before.has(p)) };
}

export async function runEdge(options: EdgeOptions, log: (line: string) => void): Promise<EdgeRun> {
  const runId = Date.now().toString(36);
  const measured: Measured[] = [];
  const build = await buildGateway();
  const bareDir = await mkdtemp(join(tmpdir(), "tollgate-edge-bare-"));
  try {
    const bareBundle = await buildBundle(TARGET_SPECS.bare, "bare.ts", join(bareDir, "bare"));
    const bareEmulators = await emulatorWorkerOptions(join(bareDir, "emulators"), TARGET_SPECS.bare.upstreams);
    const bare = await startedWith(() => withMiniflare(TARGET_SPECS.bare, bareBundle, { emulators: bareEmulators }));
    try {
      for (const k of options.ks) {
        const started = performance.now();
        const { value: cluster, pids } = await startedWith(() =>
          startCluster(build, {
            isolates: k,
            timeScale: options.timeScale,
            counterTimeoutMs: options.counterTimeoutMs,
            overridesRefreshMs: DEPLOYED_OVERRIDES_REFRESH_MS,
          }),
        );
        log(
          `K=${k}: ${k} isolate(s) started in ${((performance.now() - started) / 1000).toFixed(1)} s (workerd ${pids.join(",") || "not found: no CPU figures"})`,
        );
        try {
          for (const mix of options.mixes) {
            const target = targetFor(mix.row);
            for (const rtt of options.rtts) {
              // The bare Worker's run right before each gateway run: the pair shares the machine's
              // load of the moment, which moves latency on a shared 2-core machine more than RTT does.
              const b = await bareRun(bare.value.url, bare.pids, mix, target, k, rtt, options, runId);
              measured.push(b);
              log(`K=${k} ${mix.name} bare: ${b.admitted} answered 2xx in ${(b.wallMs / 1000).toFixed(1)} s`);
              const m = await gatewayRun(cluster, pids, mix, target, rtt, options, runId);
              measured.push(m);
              log(
                `K=${k} ${mix.name} RTT ${JSON.stringify(rtt)}: ${m.admitted} admitted, ${m.denied} refused, ${m.failed} failed, ${m.objectCalls} object calls ${JSON.stringify(m.callsByBinding)}, rows ${JSON.stringify(m.rowsByClass)}, ${m.alarms} alarms, objects busy ${(m.busyMs / 1000).toFixed(2)} s in ${(m.wallMs / 1000).toFixed(1)} s`,
              );
            }
          }
        } finally {
          await cluster.stop();
        }
      }
    } finally {
      await bare.value.stop();
    }
  } finally {
    await build.cleanup();
    await rm(bareDir, { recursive: true, force: true });
  }
  return { options, measured };
}

/** The CPU the workerd processes spent between two readings, when both could be read. */
function cpuSpent(before: number | undefined, after: number | undefined): number | undefined {
  return before === undefined || after === undefined ? undefined : after - before;
}
