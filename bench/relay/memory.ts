// Resident memory of the workerd processes serving a target, from /proc/<pid>/status (Linux).
import { readFileSync } from "node:fs";

/** Pure: VmRSS of a /proc/<pid>/status text, in bytes (the kernel writes it in kB); undefined when absent. */
export function parseVmRss(status: string): number | undefined {
  const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return m ? Number(m[1]) * 1024 : undefined;
}

/** The processes' resident memory together, in bytes; undefined where /proc cannot be read. */
export function rssBytes(pids: readonly number[]): number | undefined {
  if (pids.length === 0) return undefined;
  let total = 0;
  for (const pid of pids) {
    let rss: number | undefined;
    try {
      rss = parseVmRss(readFileSync(`/proc/${pid}/status`, "utf8"));
    } catch {
      return undefined;
    }
    if (rss === undefined) return undefined;
    total += rss;
  }
  return total;
}
