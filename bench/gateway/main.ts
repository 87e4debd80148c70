// npm run bench:gateway: the gateway against a bare pass-through Worker and hono-rate-limiter, on
// the traffic shapes of issue 10. Arguments: bench/gateway/args.ts; the run: bench.ts; the
// printed and JSON reports: report.ts.
import { commandOptions } from "../../tools/cli.ts";
import { parseBenchArgs, USAGE } from "./args.ts";
import { runBench } from "./bench.ts";
import { jsonReport, renderReport } from "./report.ts";
import { summarize } from "./summary.ts";

const TOOL = "bench:gateway";

const options = commandOptions(TOOL, parseBenchArgs, USAGE);

let result;
try {
  result = await runBench(options, (line) => console.error(line));
} catch (error) {
  console.error(`${TOOL}: could not run: ${(error as Error).message}`);
  process.exit(3);
}

if (options.json) console.log(JSON.stringify(jsonReport(result, options), null, 2));
else console.log(renderReport(result, options));

// The peer's answers are findings about the peer; the gateway's and the baseline's are ours.
const failed = summarize(result.runs, options.shapes, options.targets).some((r) => r.target !== "peer" && r.problems.length > 0);
process.exit(failed ? 1 : 0);
