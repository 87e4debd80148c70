// The CPU time of the workerd processes a Miniflare started: workerd does not report CPU per
// request locally, so the bench reads the process's user + system time (/proc/PID/stat) before and
// after a run and divides by the requests. Linux only; undefined elsewhere.
import { readFileSync, readdirSync } from "node:fs";

const TICKS_PER_S = 100;

/** Child processes of this Node process named workerd. */
export function workerdPids(): number[] {
  const pids: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return [];
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readStat(Number(entry));
    if (stat && stat.comm === "workerd" && stat.ppid === process.pid) pids.push(Number(entry));
  }
  return pids;
}

function readStat(pid: number): { comm: string; ppid: number; cpuMs: number } | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8");
    // comm is in parentheses and may hold spaces: the fields after the last ')' are fixed.
    const close = text.lastIndexOf(")");
    const comm = text.slice(text.indexOf("(") + 1, close);
    const fields = text.slice(close + 2).split(" ");
    // After comm: state(0) ppid(1) ... utime(11) stime(12), in clock ticks.
    return { comm, ppid: Number(fields[1]), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_S };
  } catch {
    return undefined;
  }
}

/** User + system CPU ms of `pids` so far (their threads included). */
export function cpuMsOf(pids: readonly number[]): number | undefined {
  if (pids.length === 0) return undefined;
  let total = 0;
  for (const pid of pids) {
    const stat = readStat(pid);
    if (!stat) return undefined;
    total += stat.cpuMs;
  }
  return total;
}
