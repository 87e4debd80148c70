// CPU time of the workerd processes serving a target, in nanoseconds: the sum of every thread's
// time on a CPU from /proc/<pid>/task/<tid>/schedstat (Linux). bench:gateway reads utime+stime
// (gateway/processes.ts), in 10 ms clock ticks: a relay run's few hundred ms of CPU would carry
// several per cent of rounding there, so this reads the scheduler's own nanoseconds, falling
// back to the ticks where schedstat cannot be read.
import { readdirSync, readFileSync } from "node:fs";
import { cpuMs } from "../gateway/processes.ts";

/** Pure: the time on a CPU (ns) of a schedstat text: its first field. */
export function parseSchedstatNs(schedstat: string): number | undefined {
  const first = schedstat.trim().split(/\s+/)[0];
  const ns = Number(first);
  return first !== undefined && first !== "" && Number.isFinite(ns) ? ns : undefined;
}

function processNs(pid: number): number | undefined {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let ns: number | undefined;
    try {
      ns = parseSchedstatNs(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8"));
    } catch {
      // A thread that ended between the listing and the read: its time is gone with it.
      continue;
    }
    if (ns === undefined) return undefined;
    total += ns;
  }
  return total;
}

/** CPU time used so far by these processes, in ns; undefined where neither reading works. */
export function cpuNs(pids: readonly number[]): number | undefined {
  if (pids.length === 0) return undefined;
  try {
    let total = 0;
    for (const pid of pids) {
      const ns = processNs(pid);
      if (ns === undefined) throw new Error("no schedstat");
      total += ns;
    }
    return total;
  } catch {
    const ms = cpuMs(pids);
    return ms === undefined ? undefined : ms * 1e6;
  }
}
