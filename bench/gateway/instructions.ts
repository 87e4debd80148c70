// Instructions a target's workerd processes execute during a run, counted by the CPU's own
// counter through `perf stat`. CPU time on a shared or virtual machine moves with everything else
// the machine does (cache misses, other tenants), even between rounds of one run (docs/bench.md).
// The instructions a request costs do not: they say how much work the gateway
// does, whatever the machine's speed. Without perf (or without access to the counter), the figure
// is simply absent.
import { spawn } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { setTimeout as sleep } from "node:timers/promises";

/** The event counted: instructions retired in user mode (the kernel's share needs privileges). */
export const INSTRUCTIONS_EVENT = "instructions:u";

/**
 * Pure: the count of `event` in `perf stat -x ,` output (value,unit,event,...), or undefined when
 * the counter is not supported or perf printed no line for it. "<not counted>" is 0: with one
 * event nothing competes for the counter, so it was never counted only because the processes
 * never ran while counting.
 */
export function parsePerfStat(output: string, event = INSTRUCTIONS_EVENT): number | undefined {
  for (const line of output.split("\n")) {
    const fields = line.split(",");
    if (fields[2] !== event) continue;
    if (fields[0] === "<not counted>") return 0;
    const value = Number(fields[0]);
    return fields[0] !== "" && Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}

export interface InstructionCount {
  /** Stops counting; the instructions counted since the start, or undefined if perf failed. */
  stop(): Promise<number | undefined>;
}

/** How long perf may take to attach or answer a command before the count is given up (never a speed check). */
const GIVE_UP_MS = 10_000;

/**
 * Starts counting the user-mode instructions of `pids` (every thread), or resolves undefined when
 * perf is missing, cannot attach, or does not answer. Counting starts only once perf has attached
 * and acknowledged (`--control` with events disabled at first), so nothing before is counted.
 *
 * @param command the perf executable (tests name a missing one, or a stand-in)
 */
export async function startInstructionCount(pids: readonly number[], command = "perf"): Promise<InstructionCount | undefined> {
  if (pids.length === 0) return undefined;
  const perf = spawn(command, ["stat", "-D", "-1", "--control", "fd:3,4", "-x", ",", "-e", INSTRUCTIONS_EVENT, "-p", pids.join(",")], {
    stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
  });
  let output = "";
  const stderr = perf.stderr!;
  stderr.on("data", (chunk: Buffer) => (output += chunk));
  const outputEnded = new Promise<void>((resolve) => stderr.once("close", () => resolve()));
  // `exit`, not `close`: perf is gone even if a pipe it shared is not.
  const exited = new Promise<void>((resolve) => {
    perf.once("error", () => resolve());
    perf.once("exit", () => resolve());
  });
  const control = perf.stdio[3] as Writable;
  const acks = perf.stdio[4] as Readable;
  // A write to a perf that is gone must not throw out of the bench.
  control.on("error", () => {});
  // Acks are read as they come (perf writes "ack\n\0" for each command), so nothing waits unread
  // in the pipe: the count of acks so far.
  let acked = 0;
  let onAck = () => {};
  acks.on("data", (chunk: Buffer) => {
    acked += String(chunk).split("ack").length - 1;
    onAck();
  });
  let sent = 0;
  /** Sends one command and waits for its "ack"; false if perf ended or did not answer. */
  const send = async (name: "enable" | "disable"): Promise<boolean> => {
    const want = ++sent;
    const acknowledged = new Promise<boolean>((resolve) => {
      onAck = () => acked >= want && resolve(true);
    });
    control.write(`${name}\n`);
    return Promise.race([acknowledged, exited.then(() => false), giveUp().then(() => false)]);
  };
  const finish = async (): Promise<number | undefined> => {
    perf.kill("SIGINT");
    await Promise.race([exited, giveUp()]);
    perf.kill("SIGKILL");
    await Promise.race([outputEnded, giveUp()]);
    return parsePerfStat(output);
  };
  if (!(await send("enable"))) {
    await finish();
    return undefined;
  }
  return {
    stop: async () => {
      const disabled = await send("disable");
      const count = await finish();
      return disabled ? count : undefined;
    },
  };
}

/** Whether perf can count instructions here (this process's own, briefly). */
export async function canCountInstructions(command = "perf"): Promise<boolean> {
  const count = await startInstructionCount([process.pid], command);
  return (await count?.stop()) !== undefined;
}

/** Resolves after GIVE_UP_MS without keeping the bench alive. */
function giveUp(): Promise<void> {
  return sleep(GIVE_UP_MS, undefined, { ref: false });
}
