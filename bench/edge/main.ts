// npm run bench:edge: what the edge costs, in latency and dollars, with round trips injected
// around the gateway. Arguments: args.ts; the mixes: mixes.ts; the run: run.ts; the math and the
// table: report.ts; the prices: prices.ts.
import { runCommand } from "../../tools/kit/command.ts";
import { writeJson } from "../../tools/kit/report.ts";
import { runVerdict } from "../../tools/kit/verdict.ts";
import { parseEdgeArgs, USAGE } from "./args.ts";
import { renderTable, rowsOf } from "./report.ts";
import { runEdge } from "./run.ts";

const status = await runCommand(
  {
    tool: "bench:edge",
    usage: USAGE,
    parse: parseEdgeArgs,
    run: (options) => runEdge(options, (line) => console.error(line)),
    report: async (run, options) => {
      const rows = rowsOf(run.measured);
      console.log(renderTable(rows));
      console.log(
        "+p50/+p95/+p99: client-observed latency added over the bare Worker's run made right before (same mix, K and round trip), ms; counter calls: RPC calls from the isolates to counter objects, all calls: to counter, overrides and metrics objects (each a billed object request); rows: counted through the objects' KV storage; alarms: the objects' alarm invocations (each a billed object request); CPU: the serving workerd's user+system time over the run / requests (all K isolates, the owner's objects and the emulators); $/M: dollars per million client requests (bench/edge/prices.ts, docs/edge-cost.md), object duration billed while each object handles a call or an alarm; $/M upper: every touched object active for the whole run",
      );
      if (options.json) await writeJson(options.json, { options: { ...options, mixes: options.mixes.map((m) => m.name) }, rows });
      return runVerdict(run.measured.some((m) => m.failed > 0));
    },
  },
  process.argv.slice(2),
);
process.exit(status);
