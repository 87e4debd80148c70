// npm run bench:relay: what relaying a WebSocket costs workerd, per frame and per held socket,
// through the gateway beside two bare relays (issue 42). Arguments: args.ts; the run: run.ts; the
// printed and JSON reports: report.ts.
import { runCommand } from "../../tools/kit/command.ts";
import { withStdoutOnStderr } from "../gateway/json-output.ts";
import { parseRelayArgs, USAGE } from "./args.ts";
import { jsonReport, renderReport } from "./report.ts";
import { runRelayBench } from "./run.ts";

const status = await runCommand(
  {
    tool: "bench:relay",
    usage: USAGE,
    parse: parseRelayArgs,
    // With --json, stdout is the report's alone: anything else written there meanwhile goes to stderr.
    run: (options) => {
      const run = () => runRelayBench(options, (line) => console.error(line));
      return options.json ? withStdoutOnStderr(run) : run();
    },
    report: (result, options) => {
      if (options.json) console.log(JSON.stringify(jsonReport(result, options), null, 2));
      else console.log(renderReport(result, options));
      // The bench measures; it has no threshold to fail (runs that fail end it as could-not-run).
      return "PASS";
    },
  },
  process.argv.slice(2),
);
process.exit(status);
