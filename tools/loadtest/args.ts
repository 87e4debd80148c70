// Pure: command-line arguments to load-test options. Every refusal names the bad option.
import type { Algorithm } from "../../src/core/limiter/index.ts";
import { REGIONS, type Region } from "../../src/core/rules/schema.ts";
import { exitStatusText } from "../kit/verdict.ts";
import { BadArgument, choiceOption, fileOption, numberedList, numberOption, parseOptions, type NumberBounds } from "../kit/args.ts";
import { isIP } from "node:net";
import type { LoadTestOptions } from "./loadtest.ts";
import { MAX_TIME_SCALE } from "./pacing.ts";
import { UNJUDGED_POLICIES, type UnjudgedPolicy } from "./outcome.ts";

export const USAGE = `usage: npm run loadtest -- [--rules 12,28|1-5|all] [--region us|eu|us,eu] [--time-scale auto|K | --target URL]
                        [--load X] [--windows N] [--min-phase S] [--min-window S] [--share F]
                        [--capacity R] [--budget R] [--rule-rate-cap R] [--burst-factor F]
                        [--burst-cap N] [--connections N] [--pipelining N] [--port P]
                        [--source-ips A,B,C] [--json FILE] [--report FILE] [--junit FILE]
                        [--unjudged pass|fail] [--answers FILE] [--wide] [--no-progress]
                        [--no-second-try]

  --rules        rows to test (default all): 1-29 of rules/hosted-api.json, 100-102 of
                 rules/control-plane.json, 200-203 of rules/agent-server.json, each sent
                 through its upstream's local mount (/v2, /agent-server)
  --region       whose limits, one region or several in one run (default us)
  --target       test a running gateway at URL (local or deployed) instead of starting one
  --time-scale   auto (default): each row its own scale, paced by the measured capacity so its
                 limit is reached and a window proven full; K: divide every interval by K
  --load         the steady client's rate as a multiple of count per window (default 1.4)
  --windows      the steady client runs at least N windows (default 1: a window filled, then
                 refusals; 2 or more also cross the windows' ends)...
  --min-phase    ...and at least S seconds (default 6)
  --min-window   auto pacing scales no row's window below S real seconds (default 10)
  --share        the share of the measured capacity the run plans to use (default 0.7)
  --capacity     the target's requests/s, when known: no measuring
  --budget       requests per second the whole run may send (default: share x capacity)
  --rule-rate-cap  most requests per second one steady client sends (default 400)
  --burst-factor   a burst is F x count requests at once (default 2)...
  --burst-cap      ...and at most N (default 200)
  --connections  lanes measuring the capacity (default 64); in the run each client has its
                 own connections, as many as it may have in flight
  --pipelining   requests per connection in flight (default 1)
  --port         the local gateways listen on P, P+1, ... (default: free ports)
  --source-ips   send from these addresses of this machine (a deployed gateway sees the
                 socket's): three or more give each client of an IP-keyed row its own counter
  --json FILE    write the full results as JSON
  --report FILE  write a self-contained HTML report with a chart per rule
  --junit FILE   write a JUnit XML report: one test case per row and region
  --unjudged     fail: a row left unjudged fails the run (exit 1) and its JUnit case;
                 pass (default): it is reported, skipped in JUnit
  --answers FILE write every answer as JSON lines (send/receive times, status, r, Retry-After)
  --wide         print the full summary table (rates, window, under-admission, latency: about
                 170 columns) and the reasons unwrapped; by default the summary fits 100 columns
  --no-progress  no live progress display
  --no-second-try  a row left unjudged stays so; by default it gets one more window: its
                 steady client again on a fresh counter, judged over both tries, and says so

examples:
  npm run loadtest -- --rules all --region us,eu --junit loadtest.xml --unjudged fail
  npm run loadtest -- --rules 12,28 --time-scale 10 --report report.html
  npm run loadtest -- --rules 28 --target http://127.0.0.1:8787 --source-ips 127.0.0.2,127.0.0.3,127.0.0.4

${exitStatusText({ pass: "no rule failed (each held, or unjudged without --unjudged fail)", fail: "a rule failed or erred (or was unjudged, with --unjudged fail)", couldNotRun: "the gateway did not start or did not answer as one" })}`;

/** The run's own options, plus what only the command has. */
export interface CliOptions extends Omit<
  LoadTestOptions,
  "target" | "answersFile" | "onPlan" | "onStart" | "onSecondTry" | "algorithm" | "unjudged" | "secondTry"
> {
  readonly target: URL | undefined;
  readonly json: string | undefined;
  readonly report: string | undefined;
  readonly junit: string | undefined;
  /** Whether an unjudged row fails the run ("fail": CI refuses a run that proved too little). */
  readonly unjudged: UnjudgedPolicy;
  /** Every answer as JSON lines (for digging into a failure). */
  readonly answers: string | undefined;
  /** The full summary table, wider than 100 columns. */
  readonly wide: boolean;
  readonly progress: boolean;
  /** Whether a row left unjudged gets one more window (second-try.ts). */
  readonly secondTry: boolean;
  /** Test only (not in the usage text): run the local gateway with a deliberately broken counter. */
  readonly algorithm: Algorithm;
  readonly help: boolean;
}

export const DEFAULTS = {
  regions: ["us"] as readonly Region[],
  timeScale: "auto" as number | "auto",
  load: 1.4,
  windows: 1,
  minPhaseS: 6,
  minWindowS: 10,
  share: 0.7,
  ruleRateCap: 400,
  burstFactor: 2,
  burstCap: 200,
  connections: 64,
  pipelining: 1,
  unjudged: "pass" as UnjudgedPolicy,
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
  "min-window": { type: "string" },
  share: { type: "string" },
  capacity: { type: "string" },
  budget: { type: "string" },
  "rule-rate-cap": { type: "string" },
  "burst-factor": { type: "string" },
  "burst-cap": { type: "string" },
  connections: { type: "string" },
  pipelining: { type: "string" },
  port: { type: "string" },
  "source-ips": { type: "string" },
  json: { type: "string" },
  report: { type: "string" },
  junit: { type: "string" },
  unjudged: { type: "string" },
  answers: { type: "string" },
  wide: { type: "boolean" },
  "no-progress": { type: "boolean" },
  "no-second-try": { type: "boolean" },
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
  const optionalNumber = (name: keyof typeof OPTIONS, bounds?: NumberBounds) => (str(name) === undefined ? undefined : number(name, 0, bounds));

  const regions = parseRegions(str("region"));

  let target: URL | undefined;
  const rawTarget = str("target");
  if (rawTarget !== undefined) {
    if (!URL.canParse(rawTarget)) throw new BadArgument(`--target: "${rawTarget}" is not a URL`);
    target = new URL(rawTarget);
    if (target.protocol !== "http:" && target.protocol !== "https:") throw new BadArgument(`--target: must be an http or https URL (got ${target.protocol})`);
    if (target.search || target.hash) throw new BadArgument(`--target: give the gateway's base URL, without a query or fragment`);
  }
  if (target && regions.length > 1) throw new BadArgument(`--region: a --target gateway enforces one region's limits; name one (got ${regions.join(",")})`);

  // The gateway accepts TIME_SCALE up to 3600 (an hour-long window in one second).
  const rawScale = str("time-scale");
  const timeScale = rawScale === undefined || rawScale === "auto" ? (target ? 1 : "auto") : number("time-scale", 1, { max: MAX_TIME_SCALE });
  if (target && timeScale !== 1) {
    throw new BadArgument(
      `--time-scale: only the local gateways the tool starts can be scaled (the us and eu environments refuse TIME_SCALE); with --target it must be 1`,
    );
  }
  const algorithm = choiceOption<Algorithm>("limiter-algorithm", str("limiter-algorithm"), "sliding-window", ALGORITHMS);
  if (target && algorithm !== "sliding-window")
    throw new BadArgument(`--limiter-algorithm: applies only to the local gateway the tool starts, not to --target`);
  const port = optionalNumber("port", { integer: true, min: 1, max: 65_000 });
  if (target && port !== undefined) throw new BadArgument(`--port: sets the local gateways' ports; --target names its own`);

  const rulesRaw = str("rules") ?? "all";
  const rules = rulesRaw === "all" ? ("all" as const) : parseRuleList(rulesRaw, ruleIds);
  const budget = optionalNumber("budget", { max: 1_000_000 });
  const capacity = optionalNumber("capacity", { max: 1_000_000 });

  return {
    rules,
    regions,
    target,
    timeScale,
    load: number("load", DEFAULTS.load, { above: 1, max: 1000 }),
    windows: number("windows", DEFAULTS.windows, { integer: true, min: 1, max: 1000 }),
    minPhaseS: number("min-phase", DEFAULTS.minPhaseS, { min: 0, max: 86_400 }),
    minWindowS: number("min-window", DEFAULTS.minWindowS, { min: 0.1, max: 3600 }),
    share: number("share", DEFAULTS.share, { above: 0, max: 1 }),
    ...(capacity !== undefined ? { capacity } : {}),
    ...(budget !== undefined ? { budget } : {}),
    ruleRateCap: number("rule-rate-cap", DEFAULTS.ruleRateCap, { max: 1_000_000 }),
    burstFactor: number("burst-factor", DEFAULTS.burstFactor, { min: 1, max: 100 }),
    burstCap: number("burst-cap", DEFAULTS.burstCap, { integer: true, min: 3, max: 100_000 }),
    connections: number("connections", DEFAULTS.connections, { integer: true, min: 1, max: 4096 }),
    pipelining: number("pipelining", DEFAULTS.pipelining, { integer: true, min: 1, max: 128 }),
    ...(port !== undefined ? { port } : {}),
    ...(str("source-ips") !== undefined ? { sourceIps: parseSourceIps(str("source-ips")!) } : {}),
    json: fileOption("json", str("json")),
    report: fileOption("report", str("report")),
    junit: fileOption("junit", str("junit")),
    unjudged: choiceOption<UnjudgedPolicy>("unjudged", str("unjudged"), DEFAULTS.unjudged, UNJUDGED_POLICIES),
    answers: fileOption("answers", str("answers")),
    wide: Boolean(values.wide),
    progress: !values["no-progress"],
    secondTry: !values["no-second-try"],
    algorithm,
    help: Boolean(values.help),
  };
}

/** "us", "us,eu" -> the regions, in the order given, each once. */
export function parseRegions(raw: string | undefined): Region[] {
  if (raw === undefined) return [...DEFAULTS.regions];
  const parts = raw.split(",").map((p) => p.trim());
  for (const part of parts) choiceOption<Region>("region", part, DEFAULTS.regions[0]!, REGIONS);
  return [...new Set(parts as Region[])];
}

/** "127.0.0.2,127.0.0.3" -> the addresses, each an IP literal, each once. */
export function parseSourceIps(raw: string): string[] {
  const parts = raw.split(",").map((p) => p.trim());
  for (const part of parts) if (isIP(part) === 0) throw new BadArgument(`--source-ips: "${part}" is not an IP address`);
  return [...new Set(parts)];
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
