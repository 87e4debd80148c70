// npm run bench:npm-start: how long `npm start` (local edge + wrangler dev, as a client developer
// runs it) takes to answer a burst on one key of a 2000/10 s row, from a keep-alive client.
// Figures, not a test: the mark is 2,000 requests from 48 connections within 8 s here.
//
//   npm run bench:npm-start [-- --requests 2000 --connections 48 --rounds 3]
import { spawn } from "node:child_process";
import net from "node:net";
import autocannon from "autocannon";
import { commandOptions, numberOption, parseOptions, WHOLE_FROM_1 } from "../tools/kit/args.ts";

const USAGE = `usage: npm run bench:npm-start -- [--requests N] [--connections N] [--rounds N]

Starts npm start and times a burst of POST /runs/batch on one key of row 7 (2000 per 10 s), from
keep-alive connections, once per round.

  --requests N      requests per round (default 2000)
  --connections N   keep-alive connections (default 48)
  --rounds N        rounds (default 3)`;

const { requests, connections, rounds } = commandOptions(
  "bench:npm-start",
  (argv) => {
    const { values } = parseOptions(argv, {
      requests: { type: "string" },
      connections: { type: "string" },
      rounds: { type: "string" },
      help: { type: "boolean", short: "h" },
    });
    return {
      requests: numberOption("requests", values.requests, 2000, WHOLE_FROM_1),
      connections: numberOption("connections", values.connections, 48, WHOLE_FROM_1),
      rounds: numberOption("rounds", values.rounds, 3, WHOLE_FROM_1),
      help: values.help ?? false,
    };
  },
  USAGE,
);

const port = await freePort();
const server = spawn("npm", ["start", "--", "--port", String(port)], { stdio: ["ignore", "pipe", "inherit"], detached: true });
await new Promise<void>((resolve, reject) => {
  server.stdout.on("data", (chunk: Buffer) => chunk.toString().includes("tollgate is ready on") && resolve());
  server.on("exit", (code) => reject(new Error(`npm start exited (${code}) before it was ready`)));
});

try {
  console.log(`npm start on :${port}; ${requests} POST /runs/batch (row 7, 2000 per 10 s) on one key per round, ${connections} keep-alive connections`);
  for (let round = 1; round <= rounds; round++) {
    const started = performance.now();
    let answered = 0;
    let lastAnswer = started;
    // autocannon notices `amount` on its one-second tick: time the last answer ourselves.
    const result = await new Promise<autocannon.Result>((resolve, reject) => {
      const run = autocannon(
        {
          url: `http://127.0.0.1:${port}/runs/batch`,
          method: "POST",
          headers: { "x-api-key": `bench-${crypto.randomUUID()}`, "content-type": "application/json" },
          body: "{}",
          connections,
          pipelining: 1,
          amount: requests,
        },
        (error, done) => (error ? reject(error) : resolve(done)),
      );
      run.on("response", () => {
        answered++;
        lastAnswer = performance.now();
      });
    });
    const seconds = (lastAnswer - started) / 1000;
    const statuses = `2xx ${result["2xx"]}, 4xx ${result["4xx"]}, 5xx ${result["5xx"]}, answered ${answered}`;
    console.log(
      `round ${round}: ${seconds.toFixed(2)} s, ${(requests / seconds).toFixed(0)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; ` +
        `${statuses}; errors ${result.errors}, timeouts ${result.timeouts}`,
    );
  }
} finally {
  process.kill(-server.pid!, "SIGTERM");
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
    probe.on("error", reject);
  });
}
