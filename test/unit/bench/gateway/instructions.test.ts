import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { canCountInstructions, parsePerfStat, startInstructionCount } from "../../../../bench/gateway/instructions.ts";

describe("parsePerfStat", () => {
  it("reads the count of user-mode instructions from perf stat's CSV output", () => {
    const output = "Events disabled\nEvents enabled\nEvents disabled\n694282490,,instructions:u,323720293,100.00,,\n";
    expect(parsePerfStat(output)).toBe(694282490);
  });

  it("reads a counter that never ran (the processes were idle) as zero", () => {
    expect(parsePerfStat("<not counted>,,instructions:u,0,0.00,,\n")).toBe(0);
  });

  it("gives nothing when the counter is not supported, or perf printed no such line", () => {
    expect(parsePerfStat("<not supported>,,instructions:u,0,100.00,,\n")).toBeUndefined();
    expect(parsePerfStat("1234,,cycles:u,100,100.00,,\n")).toBeUndefined();
    expect(parsePerfStat("")).toBeUndefined();
  });
});

describe("startInstructionCount", () => {
  it("counts nothing, and says so, when perf is missing", async () => {
    await expect(startInstructionCount([process.pid], "tollgate-no-such-perf")).resolves.toBeUndefined();
  });

  // A stand-in for perf stat --control fd:3,4 that acknowledges each command in two writes (as
  // perf's "ack\n\0" may arrive), records the commands, and prints its count when interrupted.
  it("enables counting, disables it and reads the count through perf's control protocol", async () => {
    const dir = await mkdtemp(join(tmpdir(), "fake-perf-"));
    try {
      const log = join(dir, "commands");
      const fake = join(dir, "perf");
      await writeFile(
        fake,
        [
          "#!/bin/sh",
          `trap 'echo "Events disabled" >&2; echo "12345,,instructions:u,1,100.00,," >&2; exit 0' INT`,
          `echo "$@" > ${log}`,
          "while read -r command <&3; do",
          `  echo "$command" >> ${log}`,
          "  printf 'ack\\n' >&4",
          "  printf '\\000' >&4",
          "done",
        ].join("\n"),
      );
      await chmod(fake, 0o755);
      const count = await startInstructionCount([101, 202], fake);
      expect(count).toBeDefined();
      await expect(count!.stop()).resolves.toBe(12345);
      const [args, ...commands] = (await readFile(log, "utf8")).trim().split("\n");
      expect(args).toBe("stat -D -1 --control fd:3,4 -x , -e instructions:u -p 101,202");
      expect(commands).toEqual(["enable", "disable"]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("says it cannot count without perf", async () => {
    await expect(canCountInstructions("tollgate-no-such-perf")).resolves.toBe(false);
  });

  it("counts nothing for no process", async () => {
    await expect(startInstructionCount([])).resolves.toBeUndefined();
  });

  describe("with perf and access to the counter", () => {
    let available = false;
    let child: ChildProcess | undefined;
    beforeAll(async () => {
      available = await canCountInstructions();
    });
    afterEach(() => child?.kill());

    // A child that waits, then does a fixed amount of work when told: the count must hold that
    // work, whatever the machine's speed, and only what ran while counting.
    it("counts the instructions a process executes between start and stop", async (context) => {
      if (!available) context.skip();
      child = spawn(
        process.execPath,
        ["-e", "process.stdin.once('data', () => { let s = 0; for (let i = 0; i < 2e7; i++) s += i % 7; console.log(String(s)); })"],
        {
          stdio: ["pipe", "pipe", "ignore"],
        },
      );
      await once(child, "spawn");
      const count = await startInstructionCount([child.pid!]);
      expect(count).toBeDefined();
      child.stdin!.write("go\n");
      await once(child.stdout!, "data");
      const instructions = await count!.stop();
      // At least one instruction per iteration.
      expect(instructions).toBeGreaterThan(2e7);
    });

    it("counts a process that does nothing as next to nothing", async (context) => {
      if (!available) context.skip();
      // Counted only once it has started (its start-up is not what this counts) and sits idle.
      child = spawn(process.execPath, ["-e", "console.log('ready'); setTimeout(() => {}, 60000)"], { stdio: ["ignore", "pipe", "ignore"] });
      await once(child.stdout!, "data");
      const count = await startInstructionCount([child.pid!]);
      const instructions = await count!.stop();
      expect(instructions).toBeLessThan(2e7);
    });
  });
});
