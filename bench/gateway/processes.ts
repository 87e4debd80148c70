// Linux /proc readings for the bench: which workerd processes a target runs (Miniflare does not
// expose its child's pid), how much CPU they have used, and CPU pinning with taskset.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";

/** Direct children of a process, from every thread's /proc children list. */
function childrenOf(pid: number): number[] {
  let tasks: string[];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tasks.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").trim().split(/\s+/).filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
}

function commandOf(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/comm`, "utf8").trim();
  } catch {
    return "";
  }
}

/** Every workerd process below `root` (this process by default), children of children included. */
export function workerdProcesses(root = process.pid): Set<number> {
  const found = new Set<number>();
  const queue = childrenOf(root);
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    if (commandOf(pid) === "workerd") found.add(pid);
    queue.push(...childrenOf(pid));
  }
  return found;
}

const STABLE_MS = 1000;
const GIVE_UP_MS = 15_000;

/**
 * The workerd processes that appeared while `start` ran and the target came to answer: the ones
 * this target owns. wrangler dev starts the Worker's own workerd after its proxy's, at times
 * after it reports ready (seen with the gateway's larger bundle), so this waits until a request
 * has been answered and no further workerd has appeared for a second.
 */
export async function newWorkerdProcesses<T>(start: () => Promise<T>, answers: (value: T) => Promise<void>): Promise<{ value: T; pids: number[] }> {
  const before = workerdProcesses();
  const value = await start();
  await answers(value);
  const fresh = () => [...workerdProcesses()].filter((pid) => !before.has(pid));
  const started = Date.now();
  let pids = fresh();
  let stableSince = Date.now();
  while (Date.now() - stableSince < STABLE_MS && Date.now() - started < GIVE_UP_MS) {
    await sleep(100);
    const now = fresh();
    if (now.length !== pids.length) {
      pids = now;
      stableSince = Date.now();
    }
  }
  return { value, pids };
}

let ticksPerSecond: number | undefined;
/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat (100 on every Linux we know). */
function clockTicksPerSecond(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** utime + stime of one process (all its threads) in clock ticks, from the fields after "(comm)". */
export function parseStatTicks(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Field 14 (utime) and 15 (stime) of proc(5), counted from 1 with pid and comm first.
  return Number(fields[11]) + Number(fields[12]);
}

/** CPU time used so far by these processes, in ms (undefined where /proc cannot be read). */
export function cpuMs(pids: readonly number[]): number | undefined {
  if (pids.length === 0) return undefined;
  let ticks = 0;
  for (const pid of pids) {
    try {
      ticks += parseStatTicks(readFileSync(`/proc/${pid}/stat`, "utf8"));
    } catch {
      return undefined;
    }
  }
  return (ticks * 1000) / clockTicksPerSecond();
}

/**
 * Pins every thread of a process to the given CPUs (taskset -a). Returns false when taskset is
 * missing or refuses, so the caller can say the run was not pinned.
 */
export function pin(pid: number, cpus: string): boolean {
  try {
    execFileSync("taskset", ["-a", "-p", "-c", cpus, String(pid)], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}
