// npm run bench:gateway: the gateway against a bare pass-through Worker and hono-rate-limiter, on
// the traffic shapes of issue 10. Arguments: bench/gateway/args.ts; the run: bench.ts; the
// printed and JSON reports: report.ts.
import { runCommand } from "../../tools/kit/command.ts";
import { parseBenchArgs, USAGE } from "./args.ts";
import { runBench } from "./bench.ts";
import { withStdoutOnStderr } from "./json-output.ts";
import { jsonReport, renderReport } from "./report.ts";
import { benchVerdict, summarize } from "./summary.ts";

const status = await runCommand(
  {
    tool: "bench:gateway",
    usage: USAGE,
    parse: parseBenchArgs,
    // With --json, stdout is the report's alone: anything else written there meanwhile goes to stderr.
    run: (options) => {
      const run = () => runBench(options, (line) => console.error(line));
      return options.json ? withStdoutOnStderr(run) : run();
    },
    report: (result, options) => {
      if (options.json) console.log(JSON.stringify(jsonReport(result, options), null, 2));
      else console.log(renderReport(result, options));
      return benchVerdict(summarize(result.runs, options.shapes, options.targets));
    },
  },
  process.argv.slice(2),
);
process.exit(status);
