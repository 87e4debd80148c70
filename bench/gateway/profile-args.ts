// Pure: command-line arguments of `npm run bench:profile` to its options. Every refusal is a
// BadArgument naming the option (tools/kit/ prints it as one line).
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BadArgument, choiceOption, fileOption, numberOption, parseOptions } from "../../tools/kit/args.ts";
import { exitStatusText } from "../../tools/kit/verdict.ts";
import { DEFAULTS, STORAGES, type Storage } from "./args.ts";
import { ROUTES } from "./routes.ts";
import { usLimit } from "./rule-limits.ts";
import { SHAPE_INFO, SHAPE_NAMES, type ShapeName } from "./shape-names.ts";
import type { TargetName } from "./target-names.ts";

/** The targets a profile can be taken of: the gateway, and the bare Worker to compare with. */
export const PROFILED_TARGETS = ["gateway", "bare"] as const satisfies readonly TargetName[];
export type ProfiledTarget = (typeof PROFILED_TARGETS)[number];

/** Where the profiled workerd's inspector listens unless told (bench:profile's ports are 9100-9199). */
export const DEFAULT_INSPECTOR_PORT = 9100;

/** When the profile stops: at the run's last answer (what competes with req/s), or once the target is quiet again (its deferred work too). */
export const PROFILE_UNTIL = ["last-answer", "quiet"] as const;
export type ProfileUntil = (typeof PROFILE_UNTIL)[number];

export const PROFILE_DEFAULTS = {
  shape: "warm-keys",
  target: "gateway",
  until: "last-answer",
  top: 30,
  samplingUs: 1000,
  inspectorPort: DEFAULT_INSPECTOR_PORT,
} as const;

export const PROFILE_USAGE = `usage: npm run bench:profile -- [--shape 1-6|NAME] [--target gateway|bare] [--out FILE]
                             [--until last-answer|quiet] [--top N] [--sampling-us N] [--inspector-port N]
                             [--keys N] [--warm-passes N] [--requests N]
                             [--connections N] [--warmup N] [--storage ram|tmpdir] [--no-pin]

Where a target's CPU goes per request: starts the target exactly as bench:gateway does (the
wrangler dry-run bundle in Miniflare, its emulators beside it, same bindings), with workerd's
inspector on --inspector-port, warms it up, drives one traffic shape with the bench's own plan
(for warm keys: the new keys first, unprofiled), and records a V8 CPU profile of the target's
Worker over the measured run (Chrome DevTools Protocol, Profiler.start/stop). Prints the busy
time per answered request, the top functions by self time and by total time (file:line from the
bundle's source map) and the source files by self time, and writes the .cpuprofile (open it in
Chrome DevTools' Performance panel or speedscope). The profiler slows the Worker: compare shares
and microseconds between profiles, never with bench:gateway's req/s.

  --shape S          the traffic shape (bench:gateway's numbers or names; default 2, warm-keys):
                     ${SHAPE_NAMES.map((s) => `${SHAPE_INFO[s].number} ${s}`).join(", ")}
  --target T         gateway (default) or bare, the pass-through Worker
  --out FILE         where the .cpuprofile goes (default <tmpdir>/tollgate-<target>-<shape>.cpuprofile)
  --until U          stop profiling at the run's last answer (default: the work that competes
                     with req/s), or once the target is quiet again (quiet: the work the run
                     deferred too, such as counters settled by their alarms, as bench:gateway's
                     CPU per request counts it)
  --top N            functions listed in each table (default ${PROFILE_DEFAULTS.top})
  --sampling-us N    the profiler's sampling interval in microseconds (default ${PROFILE_DEFAULTS.samplingUs})
  --inspector-port N workerd's inspector port (default ${DEFAULT_INSPECTOR_PORT})
  --keys N --warm-passes N --requests N --connections N --warmup N --storage S --no-pin
                     as bench:gateway (defaults ${DEFAULTS.keys}, ${DEFAULTS.warmPasses}, ${DEFAULTS.requests}, ${DEFAULTS.connections}, ${DEFAULTS.warmup}, ${DEFAULTS.storage}; pinning on)
  -h, --help         this text

examples:
  npm run bench:profile
  npm run bench:profile -- --shape deny-flood --out /tmp/deny.cpuprofile
  npm run bench:profile -- --target bare --top 15

${exitStatusText({
  pass: "profiled",
  fail: "the target answered otherwise than the shape demands (the profile is still written)",
  couldNotRun: "the target could not start or its inspector could not be reached",
})}`;

export interface ProfileOptions {
  readonly shape: ShapeName;
  readonly target: ProfiledTarget;
  readonly out: string;
  readonly until: ProfileUntil;
  readonly top: number;
  readonly samplingUs: number;
  readonly inspectorPort: number;
  readonly keys: number;
  readonly warmPasses: number;
  readonly requests: number;
  readonly connections: number;
  readonly warmup: number;
  readonly storage: Storage;
  readonly pin: boolean;
  readonly help: boolean;
}

const OPTIONS = {
  shape: { type: "string" },
  target: { type: "string" },
  out: { type: "string" },
  until: { type: "string" },
  top: { type: "string" },
  "sampling-us": { type: "string" },
  "inspector-port": { type: "string" },
  keys: { type: "string" },
  "warm-passes": { type: "string" },
  requests: { type: "string" },
  connections: { type: "string" },
  warmup: { type: "string" },
  storage: { type: "string" },
  "no-pin": { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

/** "2" or "warm-keys" -> warm-keys. */
export function parseShape(raw: string | undefined): ShapeName {
  if (raw === undefined) return PROFILE_DEFAULTS.shape;
  const byNumber = SHAPE_NAMES.find((s) => String(SHAPE_INFO[s].number) === raw.trim());
  const shape = byNumber ?? SHAPE_NAMES.find((s) => s === raw.trim());
  if (!shape) throw new BadArgument(`--shape: "${raw}" is not a shape (1-${SHAPE_NAMES.length} or ${SHAPE_NAMES.join(", ")})`);
  return shape;
}

/** @throws BadArgument naming the option */
export function parseProfileArgs(argv: readonly string[]): ProfileOptions {
  const values: Record<string, string | boolean | undefined> = parseOptions(argv, OPTIONS).values;
  const str = (name: keyof typeof OPTIONS) => values[name] as string | undefined;
  const integer = (name: keyof typeof OPTIONS, fallback: number, min: number, max: number) =>
    numberOption(name, str(name), fallback, { integer: true, min, max });

  const shape = parseShape(str("shape"));
  const target = choiceOption<ProfiledTarget>("target", str("target"), PROFILE_DEFAULTS.target, PROFILED_TARGETS);
  const out = fileOption("out", str("out")) ?? join(tmpdir(), `tollgate-${target}-${shape}.cpuprofile`);
  // The same bounds as bench:gateway's, for the same reasons (args.ts).
  return {
    shape,
    target,
    out,
    until: choiceOption<ProfileUntil>("until", str("until"), PROFILE_DEFAULTS.until, PROFILE_UNTIL),
    top: integer("top", PROFILE_DEFAULTS.top, 1, 1000),
    samplingUs: integer("sampling-us", PROFILE_DEFAULTS.samplingUs, 10, 100_000),
    inspectorPort: integer("inspector-port", PROFILE_DEFAULTS.inspectorPort, 1024, 65_535),
    keys: integer("keys", DEFAULTS.keys, 1, Math.floor(0xff_ffff / 2)),
    warmPasses: integer("warm-passes", DEFAULTS.warmPasses, 1, usLimit(ROUTES.newKeys.row).count - 1),
    requests: integer("requests", DEFAULTS.requests, 1, usLimit(ROUTES.oneKey.row).count),
    connections: integer("connections", DEFAULTS.connections, 1, 1024),
    warmup: integer("warmup", DEFAULTS.warmup, 0, 100_000),
    storage: choiceOption<Storage>("storage", str("storage"), DEFAULTS.storage, STORAGES),
    pin: !values["no-pin"],
    help: Boolean(values.help),
  };
}
