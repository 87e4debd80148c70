// Pure: a profiled run as printed: what was driven, the busy time per answered request, the top
// functions by self and by total time, and the source files by self time.
import { textTable } from "../../tools/kit/report.ts";
import { runVerdict, type RunVerdict } from "../../tools/kit/verdict.ts";
import { topFunctions, type FunctionTime } from "./cpu-profile.ts";
import type { ProfileOptions } from "./profile-args.ts";
import type { ProfileResult } from "./profile-run.ts";

const fixed = (n: number, digits = 1) => n.toFixed(digits);

function functionTable(rows: readonly FunctionTime[], busyMs: number, answered: number): string {
  const perRequestUs = (ms: number) => (answered > 0 ? fixed((ms * 1000) / answered) : "-");
  const share = (ms: number) => (busyMs > 0 ? `${fixed((100 * ms) / busyMs)}%` : "-");
  return textTable({
    head: ["self ms", "self", "self us/req", "total ms", "total", "total us/req", "function", "where"],
    aligns: ["right", "right", "right", "right", "right", "right", "left", "left"],
    rows: rows.map((f) => [
      fixed(f.selfMs),
      share(f.selfMs),
      perRequestUs(f.selfMs),
      fixed(f.totalMs),
      share(f.totalMs),
      perRequestUs(f.totalMs),
      f.name,
      f.where,
    ]),
  });
}

export function renderProfile(result: ProfileResult, options: ProfileOptions): string {
  const { summary, measurement: m } = result;
  const answered = m.answered;
  const { bySelf, byTotal } = topFunctions(summary, options.top);
  const perRequest = answered > 0 ? `${fixed((summary.busyMs * 1000) / answered)} us` : "-";
  const files = summary.files.slice(0, options.top);
  return [
    `${options.target}, shape ${options.shape}: ${answered} answered of ${result.sent} (${result.check.summary}), ${Math.round(m.reqPerSec)} req/s under the profiler`,
    `workerd CPU ${m.cpuMsPerRequest === undefined ? "-" : fixed(m.cpuMsPerRequest, 3)} ms per request to ${options.until === "quiet" ? "quiet" : "the last answer"} (every thread and Worker of the process, profiler included)`,
    `the ${options.target} Worker's isolate: ${summary.samples} samples over ${fixed(summary.sampledMs)} ms, busy ${fixed(summary.busyMs)} ms (${perRequest} per answered request), idle ${fixed(summary.idleMs)} ms, not running ${fixed(summary.unsampledMs)} ms`,
    `frames ${result.sourceMapped ? "named by the bundle's source map" : "at the bundle's own positions (no source map)"}; ${result.pinning}`,
    "",
    `top ${bySelf.length} functions by self time (shares of the busy time):`,
    functionTable(bySelf, summary.busyMs, answered),
    "",
    `top ${byTotal.length} functions by total time (the function or anything it called on the stack):`,
    functionTable(byTotal, summary.busyMs, answered),
    "",
    `source files by self time (top ${files.length}):`,
    textTable({
      head: ["self ms", "self", "self us/req", "file"],
      aligns: ["right", "right", "right", "left"],
      rows: files.map((f) => [
        fixed(f.selfMs),
        `${fixed((100 * f.selfMs) / Math.max(summary.busyMs, 1e-9))}%`,
        answered > 0 ? fixed((f.selfMs * 1000) / answered) : "-",
        f.file,
      ]),
    }),
    "",
    `profile written to ${result.out}`,
    profileVerdict(result),
  ].join("\n");
}

/** FAIL when the target answered otherwise than the shape demands. */
export const profileVerdict = (result: ProfileResult): RunVerdict => runVerdict(!result.check.ok);
