// npm run bench:accuracy: one client spread over K gateway isolates sharing one set of counter
// objects. Arguments: args.ts; the isolates: cluster.ts; the scenarios: scenarios.ts and
// faults.ts; the judgement: analysis.ts; the report: report.ts.
import { writeFile } from "node:fs/promises";
import { commandOptions } from "../../tools/cli.ts";
import { parseAccuracyArgs, USAGE } from "./args.ts";
import { everyScenarioMet, jsonReport, renderReport } from "./report.ts";
import { runAccuracy } from "./run.ts";

const TOOL = "bench:accuracy";

const options = commandOptions(TOOL, parseAccuracyArgs, USAGE);

let run;
try {
  // Progress to stderr, the report to stdout.
  run = await runAccuracy(options, (line) => console.error(line));
} catch (error) {
  console.error(`${TOOL}: could not run: ${(error as Error).stack ?? error}`);
  process.exit(3);
}

console.log(renderReport(run));
if (options.json) await writeFile(options.json, JSON.stringify(jsonReport(run), null, 2));
process.exit(everyScenarioMet(run) ? 0 : 1);
