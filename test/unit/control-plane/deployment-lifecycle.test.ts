import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { isFinal, outcomeOf, PATHS, progressAt, REVISION_STATUSES, type PipelineEnd } from "../../../emulators/control-plane/deployments/lifecycle.ts";

const T0 = 1_800_000_000_000;
const STEP = 500;
const OUTCOMES: PipelineEnd[] = ["deployed", "create_failed", "build_failed", "deploy_failed"];

/** The status at each step boundary, from creation until two steps past the end. */
const walk = (outcome: PipelineEnd) => Array.from({ length: PATHS[outcome].length + 2 }, (_, i) => progressAt(T0, STEP, outcome, T0 + i * STEP).status);

describe("revision status sequence", () => {
  test("a revision walks CREATING to DEPLOYED, one status per step, then stays", () => {
    expect(walk("deployed")).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING", "DEPLOYED", "DEPLOYED", "DEPLOYED"]);
  });

  test("failure outcomes stop right after the stage that fails", () => {
    expect(walk("build_failed")).toEqual(["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "BUILD_FAILED", "BUILD_FAILED", "BUILD_FAILED"]);
    expect(walk("deploy_failed").slice(5)).toEqual(["DEPLOYING", "DEPLOY_FAILED", "DEPLOY_FAILED", "DEPLOY_FAILED"]);
    expect(walk("create_failed")).toEqual(["CREATING", "CREATE_FAILED", "CREATE_FAILED", "CREATE_FAILED"]);
  });

  test("every status on a path is a reference status; only the last one is final", () => {
    for (const outcome of OUTCOMES) {
      const path = PATHS[outcome];
      for (const status of path) expect(REVISION_STATUSES).toContain(status);
      expect(path.map(isFinal)).toEqual(path.map((_, i) => i === path.length - 1));
    }
    expect(isFinal("INTERRUPTED")).toBe(true);
  });
});

describe("progressAt", () => {
  test("changes status exactly at step boundaries", () => {
    expect(progressAt(T0, STEP, "deployed", T0 + STEP - 1)).toEqual({ status: "CREATING", since: T0, next: T0 + STEP });
    expect(progressAt(T0, STEP, "deployed", T0 + STEP)).toEqual({ status: "QUEUED", since: T0 + STEP, next: T0 + 2 * STEP });
  });

  test("a late clock lands on the due status, dated when it was due, with nothing after the end", () => {
    expect(progressAt(T0, STEP, "deployed", T0 + 4 * STEP + 123)).toEqual({ status: "AWAITING_DEPLOY", since: T0 + 4 * STEP, next: T0 + 5 * STEP });
    expect(progressAt(T0, STEP, "deployed", T0 + 3_600_000)).toEqual({ status: "DEPLOYED", since: T0 + 6 * STEP, next: null });
    expect(progressAt(T0, STEP, "build_failed", T0 + 3_600_000)).toEqual({ status: "BUILD_FAILED", since: T0 + 4 * STEP, next: null });
  });

  test("a clock before creation reads as the first status", () => {
    expect(progressAt(T0, STEP, "deployed", T0 - 10_000)).toEqual({ status: "CREATING", since: T0, next: T0 + STEP });
  });

  test("a step of 0 is final at once", () => {
    expect(progressAt(T0, 0, "deployed", T0)).toEqual({ status: "DEPLOYED", since: T0, next: null });
    expect(progressAt(T0, 0, "deploy_failed", T0)).toEqual({ status: "DEPLOY_FAILED", since: T0, next: null });
  });

  test("catching up in any number of hops ends where one jump lands, and never goes back", () => {
    const scenario = fc.record({
      outcome: fc.constantFrom(...OUTCOMES),
      step: fc.integer({ min: 1, max: 10_000 }),
      hops: fc.array(fc.integer({ min: 0, max: 20_000 }), { maxLength: 30 }),
    });
    fc.assert(
      fc.property(scenario, ({ outcome, step, hops }) => {
        const path = PATHS[outcome];
        let now = T0;
        let index = 0;
        for (const hop of hops) {
          now += hop;
          const progress = progressAt(T0, step, outcome, now);
          const next = path.indexOf(progress.status);
          expect(next).toBeGreaterThanOrEqual(index);
          expect(progress.since).toBeLessThanOrEqual(now);
          if (progress.next !== null) expect(progress.next).toBeGreaterThan(now);
          else expect(next).toBe(path.length - 1);
          index = next;
        }
        expect(progressAt(T0, step, outcome, now).status).toBe(path[index]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("failure switches", () => {
  test.each([
    [{ repo_ref: "main" }, "deployed"],
    [{ repo_ref: "feature/fail-build" }, "build_failed"],
    [{ repo_ref: "FAIL-DEPLOY-now" }, "deploy_failed"],
    [{ image_uri: "registry.example.com/agent:fail-deploy" }, "deploy_failed"],
    [{ langgraph_config_path: "fail-create/langgraph.json" }, "create_failed"],
    [{ source_tarball_path: "uploads/fail-build.tgz" }, "build_failed"],
    [{ repo_ref: "fail-deploy", image_uri: "x:fail-build" }, "build_failed"],
    [{ repo_ref: null, image_uri: null }, "deployed"],
  ] as const)("%j ends %s", (config, outcome) => {
    expect(outcomeOf(config)).toBe(outcome);
  });
});
