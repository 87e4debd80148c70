// npm run bench:workerd-ops: what the runtime calls a forwarded request is made of cost in workerd
// itself, each over an empty loop run the same way (the baseline), without an inspector attached.
// The CPU profiler (bench:profile) charges native calls, timers and Error constructors many times
// what they cost unprofiled; these figures say what each costs when nothing watches.
//
//   npm run bench:workerd-ops [-- --iterations 20000 --rounds 5]
//
// Each operation runs `iterations` times in one request to one Worker (workerd on CPU 1, this
// process on CPU 0); the request's wall time, less the empty loop's, over `iterations`, is its
// cost. The median of the rounds is printed with their range.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pin } from "./gateway/processes.ts";
import { startModuleWorker } from "./module-worker.ts";
import { spread } from "./gateway/stats.ts";
import { commandOptions, numberOption, parseOptions, WHOLE_FROM_1 } from "../tools/kit/args.ts";
import { GATEWAY_CONFIG } from "./gateway/targets.ts";

const USAGE = `usage: npm run bench:workerd-ops -- [--iterations N] [--rounds N]

Microseconds per operation in workerd, each over an empty loop: the runtime calls a forwarded
request is made of (timers, Error, Request, Response, Headers, URL, AbortSignal), unprofiled.

  --iterations N   times each operation runs per measurement (default 20000)
  --rounds N       measurements per operation, alternating operations (default 5)`;

const { iterations, rounds } = commandOptions(
  "bench:workerd-ops",
  (argv) => {
    const { values } = parseOptions(argv, { iterations: { type: "string" }, rounds: { type: "string" }, help: { type: "boolean", short: "h" } });
    return {
      iterations: numberOption("iterations", values.iterations, 20_000, WHOLE_FROM_1),
      rounds: numberOption("rounds", values.rounds, 5, WHOLE_FROM_1),
      help: values.help ?? false,
    };
  },
  USAGE,
);

/**
 * The operations, as the gateway makes them (src/gateway/proxy.ts, deadline.ts, hop-by-hop.ts,
 * src/http/problem.ts). `incoming` has the headers of a bench request; `sink` keeps each result
 * alive so none is optimized away.
 */
const OPS: Readonly<Record<string, string>> = {
  "empty loop (the baseline)": "sink = i;",
  "setTimeout + clearTimeout": "clearTimeout(setTimeout(noop, 30000));",
  "new Error": 'sink = new Error("m");',
  "new Error, stackTraceLimit 0": 'Error.stackTraceLimit = 0; sink = new Error("m"); Error.stackTraceLimit = 10;',
  "new AbortController + AbortSignal.any": "sink = AbortSignal.any([incoming.signal, new AbortController().signal]);",
  "new URL": "sink = new URL(incoming.url);",
  "new Request, the client's headers copied":
    'sink = new Request("http://upstream/commits/acme/agent", { method: "GET", headers: incoming.headers, redirect: "manual" });',
  "Headers: one set on a copy": 'copy.set("x-forwarded-proto", "http");',
  "Headers: one delete of an absent name": 'copy.delete("keep-alive");',
  "Headers: scan of the names": "for (const name of copy.keys()) sink = name;",
  "new Response, 4 headers in its init":
    'sink = new Response("{}", { status: 429, headers: { "content-type": "application/problem+json", "retry-after": "1", ratelimit: "r", "ratelimit-policy": "p" } });',
  "new Response, then 3 headers set":
    'sink = new Response("{}", { status: 429, headers: { "content-type": "application/problem+json" } }); sink.headers.set("retry-after", "1"); sink.headers.set("ratelimit", "r"); sink.headers.set("ratelimit-policy", "p");',
  "Date.now": "sink = Date.now();",
};

const names = Object.keys(OPS);
const WORKER = `
const noop = () => {};
let sink;
const RUN = {
${names.map((name, i) => `  ${i}: (incoming, copy, n) => { for (let i = 0; i < n; i++) { ${OPS[name]} } },`).join("\n")}
};
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const copy = new Headers(request.headers);
    RUN[url.searchParams.get("op")](request, copy, Number(url.searchParams.get("n")));
    return new Response(String(typeof sink));
  },
};`;

const dir = await mkdtemp(join(tmpdir(), "workerd-ops-"));
await writeFile(join(dir, "worker.mjs"), WORKER);
const { unstable_readConfig } = await import("wrangler");
// The gateway's compatibility date and flags: its timers are the ones these flags give.
const { compatibility_date, compatibility_flags } = unstable_readConfig({ config: GATEWAY_CONFIG.config, env: GATEWAY_CONFIG.env });
if (!compatibility_date) throw new Error(`${GATEWAY_CONFIG.config} sets no compatibility_date`);
const { mf, pids } = await startModuleWorker({
  name: "workerd-ops",
  dir,
  modules: ["worker.mjs"],
  compatibilityDate: compatibility_date,
  ...(compatibility_flags && { compatibilityFlags: compatibility_flags }),
  readyPath: "/?op=0&n=1",
});
try {
  const origin = (await mf.ready).origin;
  const pinned = pids.every((pid) => pin(pid, "1")) && pin(process.pid, "0");
  console.log(
    `workerd operations (compatibility date ${compatibility_date}${compatibility_flags?.length ? `, flags ${compatibility_flags.join(", ")}` : ""}): ${iterations} iterations per measurement, ${rounds} round(s); ${pinned ? "client on CPU 0, workerd on CPU 1" : "not pinned"}`,
  );
  const headers = { "x-api-key": "bench-r1-k1", "cf-connecting-ip": "10.0.0.1", accept: "*/*", "user-agent": "workerd-ops" };
  const wallMs = async (op: number) => {
    const started = performance.now();
    await (await fetch(`${origin}/commits/acme/agent?op=${op}&n=${iterations}`, { headers })).text();
    return performance.now() - started;
  };
  // Warm-up: every operation once, so none is measured before the JIT has seen it.
  for (let op = 0; op < names.length; op++) await wallMs(op);
  const perOp: number[][] = names.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (let op = 0; op < names.length; op++) {
      // The baseline beside each operation: the machine's speed at that moment, not another's.
      const base = await wallMs(0);
      perOp[op]!.push(((op === 0 ? base : (await wallMs(op)) - base) * 1000) / iterations);
    }
  }
  for (const [op, name] of names.entries()) {
    const s = spread(perOp[op]!)!;
    const what = op === 0 ? "us per iteration" : "us over the empty loop";
    console.log(`  ${name.padEnd(44)} ${s.median.toFixed(2).padStart(7)} ${what}  (${s.min.toFixed(2)} to ${s.max.toFixed(2)})`);
  }
} finally {
  await mf.dispose();
  await rm(dir, { recursive: true, force: true });
}
