// Pure: a V8 CPU profile (the .cpuprofile DevTools reads) reduced to where the time went: self
// time and total time per function and self time per source file, each frame named by the
// bundle's source map where it has one. V8's own pseudo-frames ((idle), (program), (garbage
// collector)) are kept as functions of no file, so what the Worker's code costs and what the
// runtime costs are told apart.

/** The parts of a .cpuprofile read here (Profiler.Profile of the DevTools protocol). */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples?: readonly number[];
  readonly timeDeltas?: readonly number[];
}

export interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}

export interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  /** 0-based, as the protocol gives it. */
  readonly lineNumber: number;
  readonly columnNumber: number;
}

/** Where a bundle's position came from: a source file and its 1-based line, or nothing known. */
export type Origin = (frame: CallFrame) => { readonly file: string; readonly line: number } | undefined;

export interface FunctionTime {
  /** The function's name ("(anonymous)" when it has none). */
  readonly name: string;
  /** `file:line` in the sources when the source map knows it, else the bundle's `url:line`, else "". */
  readonly where: string;
  readonly selfMs: number;
  /** Time with the function anywhere on the stack (counted once per sample however deep it recurses). */
  readonly totalMs: number;
}

export interface FileTime {
  readonly file: string;
  readonly selfMs: number;
}

export interface ProfileSummary {
  readonly samples: number;
  /** Sampled time, idle included (each sample at most GAP_INTERVALS intervals). */
  readonly sampledMs: number;
  /** The profile's span not covered by samples: the isolate was not running. */
  readonly unsampledMs: number;
  /** Sampled time the isolate was idle (waiting for I/O or a request). */
  readonly idleMs: number;
  /** Sampled time not idle: what the per-function shares are of. */
  readonly busyMs: number;
  readonly functions: readonly FunctionTime[];
  readonly files: readonly FileTime[];
}

/** V8's pseudo-frame for an isolate with nothing to run. */
const IDLE = "(idle)";
/** V8's root of every stack. */
const ROOT = "(root)";

/** A frame with neither name nor script: the runtime's own code running in the isolate (workerd's C++ between JS calls). */
const NATIVE = "(native)";

const nameOf = (frame: CallFrame) => frame.functionName || (frame.url ? "(anonymous)" : NATIVE);

/** Where a frame is, in the sources when `origin` knows it. */
function placeOf(frame: CallFrame, origin: Origin | undefined): { where: string; file: string } {
  const found = frame.url ? origin?.(frame) : undefined;
  if (found) return { where: `${found.file}:${found.line}`, file: found.file };
  if (!frame.url) return { where: "", file: nameOf(frame).startsWith("(") ? nameOf(frame) : NATIVE };
  return { where: `${frame.url}:${frame.lineNumber + 1}`, file: frame.url };
}

/** A gap between samples longer than this many intervals is time the isolate was not sampled at all. */
const GAP_INTERVALS = 4;

/**
 * Each sample's node and how long it lasted: the time to the next sample (the last one gets one
 * interval), as DevTools attributes them, but at most GAP_INTERVALS intervals. workerd samples an
 * isolate only while it runs, so a gap of seconds follows the last sample before a pause; charged
 * to that frame, it would swamp every real figure. What is cut off is returned as `unsampledUs`.
 */
function sampleTimes(profile: CpuProfile, intervalUs: number): { byNode: Map<number, number>; unsampledUs: number } {
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  const byNode = new Map<number, number>();
  const cap = GAP_INTERVALS * intervalUs;
  let unsampledUs = 0;
  for (let i = 0; i < samples.length; i++) {
    const lasted = i + 1 < deltas.length ? Math.max(0, deltas[i + 1]!) : intervalUs;
    unsampledUs += Math.max(0, lasted - cap);
    byNode.set(samples[i]!, (byNode.get(samples[i]!) ?? 0) + Math.min(lasted, cap));
  }
  return { byNode, unsampledUs };
}

/**
 * Summarizes `profile`; `origin` maps bundle positions to sources (none: the bundle's own).
 *
 * @param intervalUs the sampling interval the profile was taken with
 */
export function summarizeProfile(profile: CpuProfile, intervalUs: number, origin?: Origin): ProfileSummary {
  const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);

  // One key per function (name and place), with what it is called.
  const keyOf = new Map<number, string>();
  const functions = new Map<string, { name: string; where: string; file: string; selfUs: number; totalUs: number }>();
  for (const node of profile.nodes) {
    const { where, file } = placeOf(node.callFrame, origin);
    const name = nameOf(node.callFrame);
    const key = `${name}\u0000${where}`;
    keyOf.set(node.id, key);
    if (!functions.has(key)) functions.set(key, { name, where, file, selfUs: 0, totalUs: 0 });
  }

  // The distinct functions on a node's stack, the node's own first (memoized up the tree).
  const stacks = new Map<number, ReadonlySet<string>>();
  const stackOf = (id: number): ReadonlySet<string> => {
    const known = stacks.get(id);
    if (known) return known;
    const up = parent.get(id);
    const stack = new Set(up === undefined ? [] : stackOf(up));
    if (nodes.get(id)?.callFrame.functionName !== ROOT) stack.add(keyOf.get(id)!);
    stacks.set(id, stack);
    return stack;
  };

  let sampledUs = 0;
  let idleUs = 0;
  const { byNode, unsampledUs } = sampleTimes(profile, intervalUs);
  for (const [id, us] of byNode) {
    sampledUs += us;
    if (nodes.get(id)?.callFrame.functionName === IDLE) idleUs += us;
    const own = functions.get(keyOf.get(id)!);
    if (own) own.selfUs += us;
    for (const key of stackOf(id)) functions.get(key)!.totalUs += us;
  }

  const files = new Map<string, number>();
  for (const f of functions.values()) if (f.selfUs > 0 && f.name !== IDLE) files.set(f.file, (files.get(f.file) ?? 0) + f.selfUs);

  const ms = (us: number) => us / 1000;
  return {
    samples: profile.samples?.length ?? 0,
    sampledMs: ms(sampledUs),
    unsampledMs: ms(unsampledUs),
    idleMs: ms(idleUs),
    busyMs: ms(sampledUs - idleUs),
    functions: [...functions.values()]
      .filter((f) => f.totalUs > 0 && f.name !== IDLE && f.name !== ROOT)
      .map((f) => ({ name: f.name, where: f.where, selfMs: ms(f.selfUs), totalMs: ms(f.totalUs) })),
    files: [...files].map(([file, us]) => ({ file, selfMs: ms(us) })).sort((a, b) => b.selfMs - a.selfMs),
  };
}

/** The `top` functions by self time, and by total time. */
export function topFunctions(summary: ProfileSummary, top: number): { bySelf: FunctionTime[]; byTotal: FunctionTime[] } {
  return {
    bySelf: [...summary.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, top),
    byTotal: [...summary.functions].sort((a, b) => b.totalMs - a.totalMs).slice(0, top),
  };
}
