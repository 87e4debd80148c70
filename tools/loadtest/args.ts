// Pure: command-line arguments to load-test options. Every refusal names the bad option.
import { BadArgument, parseOptions } from "../cli.ts";
import { REGIONS, type Region } from "../../src/rules/schema.ts";
import type { LimiterAlgorithm } from "./gateway.ts";
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

exit status: 0 no rule failed (each held or unjudged), 1 a rule failed or erred, 2 bad arguments,
3 the run could not start`;

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
  readonly algorithm: LimiterAlgorithm;
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

  const number = (name: keyof typeof OPTIONS, fallback: number, check: { integer?: boolean; min?: number; max?: number; above?: number } = {}) => {
    const raw = str(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    const { integer = false, min, max, above = 0 } = check;
    if (raw.trim() === "" || !Number.isFinite(value)) throw new BadArgument(`--${name}: "${raw}" is not a number`);
    if (integer && !Number.isInteger(value)) throw new BadArgument(`--${name}: "${raw}" must be a whole number`);
    if (min !== undefined ? value < min : !(value > above)) throw new BadArgument(`--${name}: must be ${min !== undefined ? `at least ${min}` : `greater than ${above}`} (got ${raw})`);
    if (max !== undefined && value > max) throw new BadArgument(`--${name}: must be at most ${max} (got ${raw})`);
    return value;
  };

  const region = str("region") ?? DEFAULTS.region;
  if (!(REGIONS as readonly string[]).includes(region)) throw new BadArgument(`--region: must be one of ${REGIONS.join(", ")} (got "${region}")`);

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
  const algorithm = str("limiter-algorithm") ?? "sliding-window";
  if (algorithm !== "sliding-window" && algorithm !== "fixed-window") throw new BadArgument(`--limiter-algorithm: must be sliding-window or fixed-window (got "${algorithm}")`);
  if (target && algorithm !== "sliding-window") throw new BadArgument(`--limiter-algorithm: applies only to the local gateway the tool starts, not to --target`);

  const rulesRaw = str("rules") ?? "all";
  const rules = rulesRaw === "all" ? ("all" as const) : parseRuleList(rulesRaw, ruleIds);

  for (const name of ["json", "report", "answers"] as const) {
    const file = str(name);
    if (file !== undefined && file.trim() === "") throw new BadArgument(`--${name}: needs a file name`);
  }

  return {
    rules,
    region: region as Region,
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
    json: str("json"),
    report: str("report"),
    answers: str("answers"),
    wide: Boolean(values.wide),
    progress: !values["no-progress"],
    algorithm,
    help: Boolean(values.help),
  };
}

/** "12,28", "1-5,9", "all" -> sorted distinct rows. */
export function parseRuleList(raw: string, ruleIds: readonly number[]): number[] {
  const known = new Set(ruleIds);
  const out = new Set<number>();
  for (const part of raw.split(",").map((p) => p.trim())) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new BadArgument(`--rules: "${part}" is not a row number, a range like 1-5, or all`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? from : Number(m[2]);
    if (to < from) throw new BadArgument(`--rules: range "${part}" runs backwards`);
    for (let id = from; id <= to; id++) {
      if (!known.has(id)) throw new BadArgument(`--rules: ${id} is not a row of the table (rows ${Math.min(...ruleIds)}..${Math.max(...ruleIds)})`);
      out.add(id);
    }
  }
  return [...out].sort((a, b) => a - b);
}
