// npm run bench:accuracy: one client spread over K gateway isolates sharing one set of counter
// objects. Arguments: args.ts; the isolates: cluster.ts; the scenarios: scenarios.ts and
// faults.ts; the judgement: analysis.ts; the report: report.ts.
import { runCommand } from "../../tools/kit/command.ts";
import { writeJson } from "../../tools/kit/report.ts";
import { parseAccuracyArgs, USAGE } from "./args.ts";
import { accuracyVerdict, jsonReport, renderReport } from "./report.ts";
import { runAccuracy } from "./run.ts";

const status = await runCommand(
  {
    tool: "bench:accuracy",
    usage: USAGE,
    parse: parseAccuracyArgs,
    // Progress to stderr, the report to stdout.
    run: (options) => runAccuracy(options, (line) => console.error(line)),
    report: async (run, options) => {
      console.log(renderReport(run));
      if (options.json) await writeJson(options.json, jsonReport(run));
      return accuracyVerdict(run);
    },
  },
  process.argv.slice(2),
);
process.exit(status);
