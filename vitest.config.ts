import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { defineConfig } from "vitest/config";
import { emulatorWorkerOptions, localServices } from "./tools/emulator-workers.ts";
import { LOCAL_BINDINGS } from "./tools/local-bindings.ts";
import { localSecret } from "./tools/local-secret.ts";
import { agentServerContract, controlPlaneContract } from "./test/workers/contract/documents.ts";
import { REGION_BLIND } from "./test/setup/region-blind.ts";

/**
 * The emulator Workers as the gateway projects run them beside the gateway: built once per vitest
 * run (`wrangler deploy --dry-run`, as they deploy; auxiliary Workers of the test pool must be
 * JavaScript), only when a gateway project starts, into a directory removed when vitest exits.
 */
let emulatorWorkers: ReturnType<typeof emulatorWorkerOptions> | undefined;
function builtEmulators() {
  if (!emulatorWorkers) {
    const dir = mkdtempSync(join(tmpdir(), "tollgate-emulators-"));
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    emulatorWorkers = emulatorWorkerOptions(dir);
  }
  return emulatorWorkers;
}

/**
 * The gateway's Workers-runtime suite runs once per region, against that region's wrangler
 * environment, with the local bindings `npm start` uses: COUNTER_JURISDICTION=none (workerd cannot
 * emulate jurisdictions; the wiring is tested separately, with a recording namespace) and each
 * upstream's service binding to its emulator Worker (the environments declare none: docs/emulators.md).
 */
/**
 * Workers files that run in a runner of their own: `long-protocol-calls.test.ts` fakes the timers
 * of its runner while gateways of files run before it in a shared runner may still have work after
 * their responses (leases given back at their end), and workerd then refuses that work's I/O as
 * another context's, which vitest reports as unhandled errors (docs/testing.md, "Run time").
 */
const OWN_RUNNER = ["test/workers/through-gateway/long-protocol-calls.test.ts"];

const workersProject = (region: "us" | "eu", ownRunner = false) => ({
  plugins: [
    // The agent-server and control-plane tests hold every response to their reference documents
    // (test/workers/contract/), through the gateway too (test/workers/through-gateway/).
    agentServerContract(),
    controlPlaneContract(),
    cloudflareTest(async () => ({
      wrangler: { configPath: "./wrangler.toml", environment: region },
      miniflare: {
        bindings: { ...LOCAL_BINDINGS, IDENTITY_HMAC_SECRET: localSecret(region) },
        serviceBindings: Object.fromEntries(Object.entries(await localServices()).map(([binding, name]) => [binding, { name }])),
        workers: await builtEmulators(),
      },
    })),
  ],
  test: {
    name: ownRunner ? `workers-${region}-own-runner` : `workers-${region}`,
    // Requests through the gateway to the emulator Workers (test/workers/through-gateway/) included;
    // the emulators' own suites run in their own projects (emulatorProject).
    include: ownRunner ? OWN_RUNNER : ["test/workers/**/*.test.ts"],
    exclude: [
      "test/workers/agent-server/**",
      "test/workers/control-plane/**",
      "test/workers/emulator-*.test.ts",
      // Files the region cannot change run in the US project only (test/setup/region-blind.ts).
      ...(region === "eu" ? REGION_BLIND : []),
      ...(ownRunner ? [] : OWN_RUNNER),
    ],
    // Real HTTP servers the Worker fetches (a redirecting origin, a WebSocket origin): node-side, shared by the tests.
    globalSetup: ["test/setup/redirecting-origin.ts", "test/setup/websocket-origin.ts"],
    // The files share a runner (one workerd with its storage, cache and module memory per vitest
    // worker) instead of starting one each (docs/testing.md, "Run time"): every test counts on
    // identities of its own (freshIdentity), and the admin tests' gateways use objects of their own
    // and reset the region's overrides after each test (test/workers/admin/support.ts).
    isolate: ownRunner,
    testTimeout: 60_000,
  },
});

/**
 * An emulator's own suite: the test Worker is the emulator (its wrangler config), so its tests
 * call it directly and look inside its Durable Objects. The shared emulator tests
 * (test/workers/emulator-*.test.ts) run in both, each on its own emulator.
 */
const emulatorProject = (name: "control-plane" | "agent-server") => ({
  plugins: [
    // Each emulator's tests hold every response to its reference document (test/workers/contract/).
    // Both projects load both: the shared emulator tests' seeding imports the agent-server helpers,
    // which import its contract, and the control-plane helpers import theirs.
    agentServerContract(),
    controlPlaneContract(),
    cloudflareTest({ wrangler: { configPath: `./emulators/${name}/wrangler.toml` } }),
  ],
  test: {
    name: `emulator-${name}`,
    include: [`test/workers/${name}/**/*.test.ts`, "test/workers/emulator-*.test.ts"],
    // The files share a runner (one workerd and its storage per vitest worker) instead of starting
    // one each (docs/testing.md, "Run time"). The control plane's tests each work in a workspace of
    // their own (freshWorkspace), so no file reads another's state. The agent server keeps one state
    // object for every caller (its threads, runs, crons and their one alarm), which its files read
    // as their own: each file starts on empty objects (fresh-state.ts).
    isolate: false,
    ...(name === "agent-server" && { setupFiles: ["test/workers/agent-server/fresh-state.ts"] }),
    testTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    // Logs (denials, injected failures) are printed for failing tests only.
    silent: "passed-only",
    // Each test is printed as it finishes, so a long file (every-rule.test.ts) shows its progress.
    reporters: ["verbose"],
    // Every core: vitest's default leaves one idle, which on 2 cores runs the suite serially
    // (docs/testing.md, "Run time").
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
          // Files share a worker process instead of starting one each (docs/testing.md, "Run time"):
          // no unit test mocks a module, stubs a global or leaves fake timers on, and each server a
          // test starts is closed by that file.
          isolate: false,
          // A ceiling, not a speed check: commands spawned by tests start slowly on a busy machine.
          testTimeout: 30_000,
          include: ["test/unit/**/*.test.ts"],
          benchmark: { include: ["bench/**/*.bench.ts"] },
        },
      },
      workersProject("us"),
      workersProject("eu"),
      // Only US files need it today (OWN_RUNNER is region-blind).
      workersProject("us", true),
      emulatorProject("control-plane"),
      emulatorProject("agent-server"),
    ],
  },
});
