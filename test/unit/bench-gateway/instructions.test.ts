import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { parsePerfStat, startInstructionCount } from "../../../bench/gateway/instructions.ts";

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

  it("counts nothing for no process", async () => {
    await expect(startInstructionCount([])).resolves.toBeUndefined();
  });

  describe("with perf and access to the counter", () => {
    let available = false;
    let child: ChildProcess | undefined;
    beforeAll(async () => {
      const probe = await startInstructionCount([process.pid]);
      available = (await probe?.stop()) !== undefined;
    });
    afterEach(() => child?.kill());

    // A child that waits, then does a fixed amount of work when told: the count must hold that
    // work, whatever the machine's speed, and only what ran while counting.
    it("counts the instructions a process executes between start and stop", async (context) => {
      if (!available) context.skip();
      child = spawn(process.execPath, ["-e", "process.stdin.once('data', () => { let s = 0; for (let i = 0; i < 2e7; i++) s += i % 7; console.log(String(s)); })"], {
        stdio: ["pipe", "pipe", "ignore"],
      });
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
