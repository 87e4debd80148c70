// npm run bench:object-call: what a Durable Object call and its first write cost in one workerd,
// side by side with a request that makes none. The floor under bench:gateway's new-identity shapes:
// a new identity's first request needs its counter call and a durable write (the reservation that
// keeps its limit across restarts), and locally both run on the Worker's own core.
//
//   npm run bench:object-call [-- --requests 2000 --rounds 3]
//
// Figures, not a test: server CPU per request (utime+stime of the workerd processes, until quiet),
// each variant over `requests` requests from 32 keep-alive connections, a fresh key per request,
// spread over OBJECTS_PER_RULE objects as the gateway spreads a rule's counters. The objects are
// created and live before the first round (an unmeasured pass), so no variant pays for their
// start-up.
import { writeFile, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { cpuMs, pin } from "./gateway/processes.ts";
import { startModuleWorker } from "./module-worker.ts";
import { AFTER_RUN, waitForQuiet } from "./gateway/quiet.ts";
import { median } from "./gateway/stats.ts";
import { OBJECTS_PER_RULE } from "../src/core/limiter/counter-name.ts";
import { commandOptions, numberOption, parseOptions, WHOLE_FROM_1 } from "../tools/kit/args.ts";

const USAGE = `usage: npm run bench:object-call -- [--requests N] [--rounds N]

Server CPU per request of a Worker that makes no object call, one call to a live object, and one
call with one durable write, over OBJECTS_PER_RULE objects, a fresh key per request.

  --requests N   requests per variant and round (default 2000)
  --rounds N     rounds, each variant once per round (default 3)`;

const { requests, rounds } = commandOptions(
  "bench:object-call",
  (argv) => {
    const { values } = parseOptions(argv, { requests: { type: "string" }, rounds: { type: "string" }, help: { type: "boolean", short: "h" } });
    return {
      requests: numberOption("requests", values.requests, 2000, WHOLE_FROM_1),
      rounds: numberOption("rounds", values.rounds, 3, WHOLE_FROM_1),
      help: values.help ?? false,
    };
  },
  USAGE,
);

// The stored value has the shape of a counter's first reservation (src/core/limiter/counter.ts).
const WORKER = `
import { DurableObject } from "cloudflare:workers";
export class Counters extends DurableObject {
  call() { return 1; }
  write(key) {
    this.ctx.storage.kv.put("ledger:" + key, { limit: { count: 10000, intervalMs: 60000 }, reservations: [{ at: Date.now(), units: 8 }] });
    return 1;
  }
}
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/none") return new Response("1");
    const key = url.searchParams.get("key");
    const stub = env.COUNTERS.getByName("objects:" + (Number.parseInt(key.slice(-6), 36) % ${OBJECTS_PER_RULE}));
    return new Response(String(url.pathname === "/write" ? await stub.write(key) : await stub.call()));
  },
};`;

const VARIANTS = [
  { path: "/none", what: "no object call (the baseline)" },
  { path: "/call", what: "one object call" },
  { path: "/write", what: "one object call with one durable write" },
] as const;

const dir = await mkdtemp(join(tmpdir(), "object-call-"));
await writeFile(join(dir, "worker.mjs"), WORKER);
const { mf, pids } = await startModuleWorker({
  name: "object-call",
  dir,
  modules: ["worker.mjs"],
  compatibilityDate: "2026-10-30",
  durableObjects: { COUNTERS: { className: "Counters", useSQLite: true } },
  readyPath: "/none",
});
try {
  const origin = (await mf.ready).origin;
  // Client and server on separate cores where there are two, as bench:gateway does.
  const pinned = pids.every((pid) => pin(pid, "1")) && pin(process.pid, "0");
  console.log(
    `object call floor: ${requests} requests per variant, 32 connections, ${rounds} round(s); ${pinned ? "client on CPU 0, workerd on CPU 1" : "not pinned"}`,
  );
  const cpu: Record<string, number[]> = {};
  let run = 0;
  const drive = (path: string) => {
    const tag = (++run).toString(36);
    let i = 0;
    return new Promise((resolve, reject) =>
      autocannon(
        {
          url: origin,
          connections: 32,
          amount: requests,
          requests: [{ method: "GET", setupRequest: (r) => ({ ...r, path: `${path}?key=${tag}x${(i++).toString(36).padStart(6, "0")}` }) }],
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      ),
    );
  };
  await drive("/call");
  for (let round = 1; round <= rounds; round++) {
    for (const { path } of VARIANTS) {
      await waitForQuiet(pids, AFTER_RUN);
      const before = cpuMs(pids);
      await drive(path);
      await waitForQuiet(pids, AFTER_RUN);
      const after = cpuMs(pids);
      if (before === undefined || after === undefined) throw new Error("cannot read the workerd processes' CPU time (/proc)");
      (cpu[path] ??= []).push((after - before) / requests);
    }
  }
  const base = median(cpu["/none"]!);
  for (const { path, what } of VARIANTS) {
    const ms = median(cpu[path]!);
    console.log(
      `  ${what.padEnd(40)} ${ms.toFixed(2)} ms CPU/request  (+${(ms - base).toFixed(2)} ms, x${(ms / base).toFixed(2)} the baseline)  rounds: ${cpu[path]!.map((v) => v.toFixed(2)).join(", ")}`,
    );
  }
} finally {
  await mf.dispose();
  await rm(dir, { recursive: true, force: true });
}
