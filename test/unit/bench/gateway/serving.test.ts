// Starts the bare fixture and the gateway through the bench's own serving code (bundles from the
// wrangler dry run, one Miniflare each) and drives them with its own shape plans. It asserts what
// was answered, never how fast.
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { drive } from "../../../../bench/gateway/drive.ts";
import { canCountInstructions } from "../../../../bench/gateway/instructions.ts";
import { probe } from "../../../../bench/gateway/probe.ts";
import { BEFORE_RUN } from "../../../../bench/gateway/quiet.ts";
import { prepareTarget, type RunningTarget } from "../../../../bench/gateway/serving.ts";
import { expectationFor, planShape } from "../../../../bench/gateway/shapes.ts";
import { TARGET_SPECS } from "../../../../bench/gateway/targets.ts";
import { checkAnswers } from "../../../../bench/gateway/verdict.ts";

// Ceilings for bundling and starting on a busy machine, not speed checks.
const SETUP_CEILING_MS = 120_000;

describe("serving the bench's targets", () => {
  let workdir: string;
  const running: Partial<Record<"bare" | "gateway", RunningTarget>> = {};
  const started = (name: "bare" | "gateway") => running[name]!;

  beforeAll(async () => {
    workdir = await mkdtemp(join(tmpdir(), "tollgate-bench-test-"));
    // The gateway's Durable Objects in a directory of the test's (the bench's --storage).
    const prepared = await Promise.all([
      prepareTarget(TARGET_SPECS.bare, "miniflare", workdir),
      prepareTarget(TARGET_SPECS.gateway, "miniflare", workdir, join(workdir, "gateway-storage")),
    ]);
    // One at a time, as the bench does: each start's new workerd processes are that target's.
    for (const target of prepared) running[target.spec.name as "bare" | "gateway"] = await target.start();
  }, SETUP_CEILING_MS);

  afterAll(async () => {
    await Promise.allSettled(Object.values(running).map((t) => t.stop()));
    if (workdir) await rm(workdir, { recursive: true, force: true });
  }, SETUP_CEILING_MS);

  it("gives each target its own workerd, and both pass the bench's start-up checks", async () => {
    expect(started("bare").pids.length).toBeGreaterThan(0);
    expect(started("gateway").pids.length).toBeGreaterThan(0);
    expect(started("bare").pids.some((pid) => started("gateway").pids.includes(pid))).toBe(false);
    // Every route answers, the gateway counts each on the row the bench names, CF-Connecting-IP passes.
    await probe(started("bare"));
    await probe(started("gateway"));
  });

  it("passes a request through to the upstream echo", async () => {
    for (const name of ["bare", "gateway"] as const) {
      const response = await fetch(new URL("/datasets?x=1", started(name).url), { headers: { "x-api-key": "pass-through" } });
      expect(response.status).toBe(200);
      expect(response.headers.get("x-echo-upstream")).toBe("hosted-api");
      expect(await response.json()).toMatchObject({ method: "GET", path: "/datasets", query: "?x=1" });
    }
  });

  it("admits exactly count of a burst on one key through the gateway, and all of it through the bare Worker", async () => {
    const plan = planShape("hot-key", 1, { keys: 1, warmPasses: 1, requests: 1, burstFactor: 3, connections: 1 });
    expect(plan.amount).toBe(45);

    // Settling as before a run (short): the bench's longer wait after a run is for CPU figures.
    const gateway = await drive(started("gateway"), plan, BEFORE_RUN, { instructions: true });
    expect(gateway).toMatchObject({ answered: 45, admitted: 15, statuses: { 200: 15, 429: 30 } });
    expect(checkAnswers(expectationFor(plan, "gateway"), gateway, plan.amount)).toMatchObject({ ok: true, summary: "15/15 exact" });
    expect(gateway.cpuMsPerRequest).toBeGreaterThanOrEqual(0);
    // Where perf can count (instructions.ts), the run's instructions are counted: a workerd
    // answering 45 requests executes far more than one per request.
    if (await canCountInstructions()) expect(gateway.instructionsPerRequest).toBeGreaterThan(1000);

    const bare = await drive(started("bare"), plan, BEFORE_RUN);
    expect(bare).toMatchObject({ answered: 45, admitted: 45 });
    // Not asked for: not counted.
    expect(bare.instructionsPerRequest).toBeUndefined();
  });

  it("keeps the gateway's counter objects in the storage directory it was given", async () => {
    const files = (await readdir(join(workdir, "gateway-storage"), { recursive: true })).map(String);
    // The counters written by the runs above: a SQLite file per Durable Object.
    expect(files.filter((f) => f.endsWith(".sqlite")).length).toBeGreaterThan(0);
  });
});
