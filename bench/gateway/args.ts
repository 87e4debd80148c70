// Pure: command-line arguments of `npm run bench:gateway` to bench options. Every refusal is a
// BadArgument naming the option (tools/kit/ prints it as one line).
import { BadArgument, choiceOption, numberedList, numberOption, parseOptions } from "../../tools/kit/args.ts";
import { exitStatusText } from "../../tools/kit/verdict.ts";
import { SHAPE_NAMES, type ShapeName } from "./shape-names.ts";
import { TARGET_NAMES, type TargetName } from "./target-names.ts";
import { ROUTES } from "./routes.ts";
import { usLimit } from "./rule-limits.ts";

export const SERVINGS = ["miniflare", "wrangler-dev"] as const;
export type Serving = (typeof SERVINGS)[number];

/** Where the targets' Durable Objects keep their SQLite files (bench.ts, storageRoot). */
export const STORAGES = ["ram", "tmpdir"] as const;
export type Storage = (typeof STORAGES)[number];

export const USAGE = `usage: npm run bench:gateway -- [--rounds N] [--serving miniflare|wrangler-dev]
                             [--storage ram|tmpdir] [--targets bare,gateway,peer]
                             [--before REV]
                             [--shapes 1-6|all] [--keys N] [--warm-passes N]
                             [--requests N] [--burst-factor F]
                             [--connections N] [--warmup N] [--instructions]
                             [--no-pin] [--json]

Starts the gateway (wrangler.toml env us, local bindings), a bare pass-through Worker and
hono-rate-limiter with its Durable Object store, each on a free port and served the same way,
drives each through six traffic shapes with autocannon, alternating targets, and prints req/s,
p50/p99 latency, server CPU ms per request (the workerd processes' utime+stime) and the ratio to
the bare Worker (median and min-max over the rounds). About 15-20 minutes with the defaults on a
busy 2-core machine.

  shapes   1 new API keys (first request of each)    row 16, --keys requests
           2 the same keys again (warm counters)      row 16, --keys x --warm-passes requests
           3 one key                                  row 11 (6000/10 s), --requests requests
           4 flood on an exhausted key (deny cache)   row 14 (30/3600 s), --requests requests
           5 anonymous clients from new IPs           row 29, --keys requests (CF-Connecting-IP)
           6 hot-key burst: --burst-factor x count at once on one key, admitted vs count
             (row 12, 15/10 s); over-admission is reported as a failure

  --rounds N         repeat every shape on every target N times (default 3)
  --serving S        miniflare: Miniflare's API on the wrangler dry-run bundle, one workerd
                     per target (default, lowest overhead); wrangler-dev: wrangler's
                     unstable_startWorker, as the load test serves the gateway
  --storage S        where the Durable Objects' SQLite files go: ram, a fresh directory under
                     /dev/shm (default: the same SQLite commits, no wait for a disk's fsync,
                     which on one workerd holds up the Worker's own thread; deployed, an
                     object's commit is never the gateway's wait); tmpdir, the OS temporary
                     directory, where Miniflare and wrangler put them by default. A full run
                     keeps thousands of objects (the peer makes one per key): where /dev/shm
                     is small (64 MB in a Docker container by default), use tmpdir
  --targets LIST     which targets (default bare,gateway,peer; bare is always run: it is the
                     baseline every ratio divides by)
  --before REV       also run the gateway as built from commit REV (target "before"): a git
                     worktree of it, with this checkout's node_modules, built, served and
                     driven exactly as the gateway, alternating with it round by round, so one
                     command prints both sides of a change on the same machine
  --shapes LIST      which shapes, e.g. 1,2,6 or 1-4 (default all; 2 needs 1)
  --keys N           new API keys in shape 1 and new IPs in shape 5 (default 1000)
  --warm-passes N    shape 2 sends every key N more times (default 3)
  --requests N       requests in shapes 3 and 4 (default 3000)
  --burst-factor F   shape 6 sends F x count requests at once (default 10)
  --connections N    keep-alive connections for shapes 1-5 (default 32)
  --warmup N         before the first round, every shape once per target with N requests,
                     not measured (default 300; 0 skips it)
  --instructions     also count the user-mode instructions each target's workerd executes per
                     request, with perf stat (Linux perf, and access to the CPU's counter):
                     the work itself, which the machine's load does not move as it moves CPU
                     time. Off by default: counting slows the measured workerd (about a
                     tenth on a virtual machine), so the req/s figures are taken without it
  --no-pin           do not pin the client to CPU 0 and the servers to the other CPUs
  --json             print the results as JSON on stdout (progress still goes to stderr)
  -h, --help         this text

examples:
  npm run bench:gateway
  npm run bench:gateway -- --rounds 5 --shapes 1,2,4
  npm run bench:gateway -- --instructions --targets bare,gateway
  npm run bench:gateway -- --shapes 1,2,4 --targets bare,gateway --before HEAD~3 --rounds 6
  npm run bench:gateway -- --serving wrangler-dev --targets bare,gateway --rounds 2
  npm run -s bench:gateway -- --json > bench-gateway.json

${exitStatusText({
  pass: "measured",
  fail: "the gateway or the bare Worker answered otherwise than expected (the gateway over-admitting in the burst included)",
  couldNotRun: "a target could not start",
})}`;

export interface BenchOptions {
  readonly rounds: number;
  readonly serving: Serving;
  readonly storage: Storage;
  readonly targets: readonly TargetName[];
  /** The revision the `before` target is built from (with --before; `before` is then a target). */
  readonly before?: string;
  readonly shapes: readonly ShapeName[];
  readonly keys: number;
  readonly warmPasses: number;
  readonly requests: number;
  readonly burstFactor: number;
  readonly connections: number;
  readonly warmup: number;
  readonly instructions: boolean;
  readonly pin: boolean;
  readonly json: boolean;
  readonly help: boolean;
}

export const DEFAULTS = {
  rounds: 3,
  serving: "miniflare",
  storage: "ram",
  keys: 1000,
  warmPasses: 3,
  requests: 3000,
  burstFactor: 10,
  connections: 32,
  warmup: 300,
} as const;

export { BadArgument };

const OPTIONS = {
  rounds: { type: "string" },
  serving: { type: "string" },
  storage: { type: "string" },
  targets: { type: "string" },
  before: { type: "string" },
  shapes: { type: "string" },
  keys: { type: "string" },
  "warm-passes": { type: "string" },
  requests: { type: "string" },
  "burst-factor": { type: "string" },
  connections: { type: "string" },
  warmup: { type: "string" },
  instructions: { type: "boolean" },
  "no-pin": { type: "boolean" },
  json: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** @throws BadArgument naming the option */
export function parseBenchArgs(argv: readonly string[]): BenchOptions {
  const values: Record<string, string | boolean | undefined> = parseOptions(argv, OPTIONS).values;
  const str = (name: keyof typeof OPTIONS) => values[name] as string | undefined;

  const integer = (name: keyof typeof OPTIONS, fallback: number, min: number, max: number) =>
    numberOption(name, str(name), fallback, { integer: true, min, max });
  const serving = choiceOption<Serving>("serving", str("serving"), DEFAULTS.serving, SERVINGS);
  const storage = choiceOption<Storage>("storage", str("storage"), DEFAULTS.storage, STORAGES);

  const before = str("before");
  if (before !== undefined && before.trim() === "") throw new BadArgument("--before: give a revision (a commit, tag or branch)");
  const targets = parseTargets(str("targets"), before !== undefined);
  const shapes = parseShapes(str("shapes"));

  // Each limit below keeps a shape measuring what it names: more would turn admissions into
  // denials (or, for the IPs, run out of the 10.0.0.0/8 addresses the bench draws from).
  const rounds = integer("rounds", DEFAULTS.rounds, 1, 100);
  const keys = integer("keys", DEFAULTS.keys, 1, Math.floor(0xff_ffff / (rounds + 1)));
  const warmRoom = usLimit(ROUTES.newKeys.row).count - 1;
  const warmPasses = integer("warm-passes", DEFAULTS.warmPasses, 1, warmRoom);
  const requests = integer("requests", DEFAULTS.requests, 1, usLimit(ROUTES.oneKey.row).count);
  const burstFactor = integer("burst-factor", DEFAULTS.burstFactor, 2, 100);
  const connections = integer("connections", DEFAULTS.connections, 1, 1024);
  const warmup = integer("warmup", DEFAULTS.warmup, 0, 100_000);

  return {
    rounds,
    serving,
    storage,
    targets,
    ...(before !== undefined && { before: before.trim() }),
    shapes,
    keys,
    warmPasses,
    requests,
    burstFactor,
    connections,
    warmup,
    instructions: Boolean(values.instructions),
    pin: !values["no-pin"],
    json: Boolean(values.json),
    help: Boolean(values.help),
  };
}

/**
 * "gateway,peer" -> the targets in run order, the bare baseline always among them, and `before`
 * exactly when there is a --before revision (`withBefore`).
 */
export function parseTargets(raw: string | undefined, withBefore = false): TargetName[] {
  const wanted = new Set<TargetName>(raw === undefined ? ["bare", "gateway", "peer"] : ["bare"]);
  for (const part of raw === undefined ? [] : raw.split(",").map((p) => p.trim())) {
    if (!(TARGET_NAMES as readonly string[]).includes(part)) throw new BadArgument(`--targets: "${part}" is not one of ${TARGET_NAMES.join(", ")}`);
    if (part === "before" && !withBefore) throw new BadArgument(`--targets: "before" is the gateway at the --before revision; give --before REV`);
    wanted.add(part as TargetName);
  }
  if (withBefore) wanted.add("before");
  return TARGET_NAMES.filter((t) => wanted.has(t));
}

/** "1,2,6", "1-4", "all" -> shape names in table order. */
export function parseShapes(raw: string | undefined): ShapeName[] {
  if (raw === undefined || raw.trim() === "all") return [...SHAPE_NAMES];
  const picked = new Set(
    numberedList("shapes", raw, {
      noun: `shape number (1-${SHAPE_NAMES.length})`,
      example: "1-4",
      unknown: (n) => (n < 1 || n > SHAPE_NAMES.length ? `${n} is not a shape (1-${SHAPE_NAMES.length})` : undefined),
    }),
  );
  // Shape 2 re-sends shape 1's keys: without 1 it would measure new keys, not warm ones.
  if (picked.has(2) && !picked.has(1)) throw new BadArgument(`--shapes: shape 2 (warm keys) re-sends shape 1's keys, so it needs shape 1 too`);
  return SHAPE_NAMES.filter((_, i) => picked.has(i + 1));
}
