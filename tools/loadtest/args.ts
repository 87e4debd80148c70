// Pure: command-line arguments to load-test options. Every refusal names the bad option.
import type { Algorithm } from "../../src/core/limiter/index.ts";
import { REGIONS, type Region } from "../../src/core/rules/schema.ts";
import { exitStatusText } from "../kit/verdict.ts";
import { BadArgument, choiceOption, fileOption, numberedList, numberOption, parseOptions, type NumberBounds } from "../kit/args.ts";
import type { PlanOptions } from "./plan.ts";

export const USAGE = `usage: npm run loadtest -- [--rules 12,28|1-5|all] [--region us|eu] [--time-scale K | --target URL]
                        [--load X] [--windows N] [--min-phase S] [--budget R] [--rule-rate-cap R]
                        [--burst-factor F] [--burst-cap N] [--connections N] [--pipelining N]
                        [--json FILE] [--report FILE] [--answers FILE] [--wide] [--no-progress]

  --rules        rows to test (default all): 1-29 of rules/hosted-api.json, 100-102 of
                 rules/control-plane.json, 200-203 of rules/agent-server.json, each sent
                 through its upstream's local mount (/v2, /agent-server)
  --region       which limits the gateway enforces (default us)
  --target       test a running gateway at URL (local or deployed) instead of starting one
  --time-scale   divide every interval by K on the local gateway the tool starts (default 1)
  --load         the steady client's rate as a multiple of count per window (default 2)
  --windows      the steady client runs at least N windows (default 3)...
  --min-phase    ...and at least S seconds (default 6)
  --budget       requests per second the whole run may send (default 400)
  --rule-rate-cap  most requests per second one steady client sends (default 200)
  --burst-factor   a burst is F x count requests at once (default 2)...
  --burst-cap      ...and at most N (default 200)
  --connections  keep-alive connections to the gateway (default 64)
  --pipelining   requests per connection in flight (default 1)
  --json FILE    write the full results as JSON
  --report FILE  write a self-contained HTML report with a chart per rule
  --answers FILE write every answer as JSON lines (send/receive times, status, r, Retry-After)
  --wide         print the full summary table (rates, window, under-admission, latency: about
                 170 columns) and the reasons unwrapped; by default the summary fits 100 columns
  --no-progress  no live progress display

examples:
  npm run loadtest -- --rules 12,28 --time-scale 10 --report report.html
  npm run loadtest -- --rules all --region eu --time-scale 60 --json results.json
  npm run loadtest -- --rules 28 --target http://127.0.0.1:8787

${exitStatusText({ pass: "no rule failed (each held or unjudged)", fail: "a rule failed or erred", couldNotRun: "the gateway did not start or did not answer as one" })}`;

/** The plan's own options (less what the run decides itself), plus what only the command has. */
export interface CliOptions extends Omit<PlanOptions, "varyIp" | "runId"> {
  readonly rules: readonly number[] | "all";
  readonly target: URL | undefined;
  readonly connections: number;
  readonly pipelining: number;
  readonly json: string | undefined;
  readonly report: string | undefined;
  /** Every answer as JSON lines (for digging into a failure). */
  readonly answers: string | undefined;
  /** The full summary table, wider than 100 columns. */
  readonly wide: boolean;
  readonly progress: boolean;
  /** Test only (not in the usage text): run the local gateway with a deliberately broken counter. */
  readonly algorithm: Algorithm;
  readonly help: boolean;
}

export const DEFAULTS = {
  region: "us",
  timeScale: 1,
  load: 2,
  windows: 3,
  minPhaseS: 6,
  budget: 400,
  ruleRateCap: 200,
  burstFactor: 2,
  burstCap: 200,
  connections: 64,
  pipelining: 1,
} as const;

export { BadArgument };

/** The counters --limiter-algorithm may pick (the broken one only for the test that catches it). */
const ALGORITHMS: readonly Algorithm[] = ["sliding-window", "fixed-window"];

const OPTIONS = {
  rules: { type: "string" },
  region: { type: "string" },
  target: { type: "string" },
  "time-scale": { type: "string" },
  load: { type: "string" },
  windows: { type: "string" },
  "min-phase": { type: "string" },
  budget: { type: "string" },
  "rule-rate-cap": { type: "string" },
  "burst-factor": { type: "string" },
  "burst-cap": { type: "string" },
  connections: { type: "string" },
  pipelining: { type: "string" },
  json: { type: "string" },
  report: { type: "string" },
  answers: { type: "string" },
  wide: { type: "boolean" },
  "no-progress": { type: "boolean" },
  "limiter-algorithm": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * @param ruleIds the rows of the table (to refuse unknown ones)
 * @throws BadArgument naming the option
 */
export function parseCli(argv: readonly string[], ruleIds: readonly number[]): CliOptions {
  // node:util names the option in its message: "Unknown option '--foo'", "Option '--load <value>' argument missing".
  const values: Record<string, string | boolean | undefined> = parseOptions(argv, OPTIONS).values;
  const str = (name: keyof typeof OPTIONS) => values[name] as string | undefined;

  const number = (name: keyof typeof OPTIONS, fallback: number, bounds?: NumberBounds) => numberOption(name, str(name), fallback, bounds);

  const region = choiceOption<Region>("region", str("region"), DEFAULTS.region, REGIONS);

  let target: URL | undefined;
  const rawTarget = str("target");
  if (rawTarget !== undefined) {
    if (!URL.canParse(rawTarget)) throw new BadArgument(`--target: "${rawTarget}" is not a URL`);
    target = new URL(rawTarget);
    if (target.protocol !== "http:" && target.protocol !== "https:") throw new BadArgument(`--target: must be an http or https URL (got ${target.protocol})`);
    if (target.search || target.hash) throw new BadArgument(`--target: give the gateway's base URL, without a query or fragment`);
  }

  // The gateway accepts TIME_SCALE up to 3600 (an hour-long window in one second).
  const timeScale = number("time-scale", DEFAULTS.timeScale, { max: 3600 });
  if (target && timeScale !== 1) {
    throw new BadArgument(`--time-scale: only the local gateway the tool starts can be scaled (the us and eu environments refuse TIME_SCALE); with --target it must be 1`);
  }
  const algorithm = choiceOption<Algorithm>("limiter-algorithm", str("limiter-algorithm"), "sliding-window", ALGORITHMS);
  if (target && algorithm !== "sliding-window") throw new BadArgument(`--limiter-algorithm: applies only to the local gateway the tool starts, not to --target`);

  const rulesRaw = str("rules") ?? "all";
  const rules = rulesRaw === "all" ? ("all" as const) : parseRuleList(rulesRaw, ruleIds);

  return {
    rules,
    region,
    target,
    timeScale,
    load: number("load", DEFAULTS.load, { max: 1000 }),
    windows: number("windows", DEFAULTS.windows, { integer: true, min: 2, max: 1000 }),
    minPhaseS: number("min-phase", DEFAULTS.minPhaseS, { min: 0, max: 86_400 }),
    budget: number("budget", DEFAULTS.budget, { max: 1_000_000 }),
    ruleRateCap: number("rule-rate-cap", DEFAULTS.ruleRateCap, { max: 1_000_000 }),
    burstFactor: number("burst-factor", DEFAULTS.burstFactor, { min: 1, max: 100 }),
    burstCap: number("burst-cap", DEFAULTS.burstCap, { integer: true, min: 3, max: 100_000 }),
    connections: number("connections", DEFAULTS.connections, { integer: true, min: 1, max: 4096 }),
    pipelining: number("pipelining", DEFAULTS.pipelining, { integer: true, min: 1, max: 128 }),
    json: fileOption("json", str("json")),
    report: fileOption("report", str("report")),
    answers: fileOption("answers", str("answers")),
    wide: Boolean(values.wide),
    progress: !values["no-progress"],
    algorithm,
    help: Boolean(values.help),
  };
}

/** "12,28", "1-5,9" -> sorted distinct rows. */
export function parseRuleList(raw: string, ruleIds: readonly number[]): number[] {
  const known = new Set(ruleIds);
  return numberedList("rules", raw, {
    noun: "row number",
    example: "1-5",
    unknown: (id) => (known.has(id) ? undefined : `${id} is not a row of the table (rows ${Math.min(...ruleIds)}..${Math.max(...ruleIds)})`),
  });
}
