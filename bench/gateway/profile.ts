// npm run bench:profile: where a target's CPU goes per request on one traffic shape, from a V8 CPU
// profile of its Worker taken while bench:gateway's own plan drives it. Arguments:
// profile-args.ts; the run: profile-run.ts; the printed report: profile-report.ts.
import { runCommand } from "../../tools/kit/command.ts";
import { withStdoutOnStderr } from "./json-output.ts";
import { parseProfileArgs, PROFILE_USAGE } from "./profile-args.ts";
import { profileVerdict, renderProfile } from "./profile-report.ts";
import { runProfile } from "./profile-run.ts";

const status = await runCommand(
  {
    tool: "bench:profile",
    usage: PROFILE_USAGE,
    parse: parseProfileArgs,
    // stdout is the report's: what the run writes there (wrangler's notes) goes to stderr with the progress.
    run: (options) => withStdoutOnStderr(() => runProfile(options, (line) => console.error(line))),
    report: (result, options) => {
      console.log(renderProfile(result, options));
      return profileVerdict(result);
    },
  },
  process.argv.slice(2),
);
process.exit(status);
