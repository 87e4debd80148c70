import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { kCurrentWorker } from "miniflare";
import { unstable_readConfig } from "wrangler";
import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { LOCAL_BINDINGS } from "./src/tools/local-bindings.ts";
import { agentServerContract } from "./test/workers/agent-server/contract/validators-plugin.ts";

interface ServiceBinding {
  binding: string;
  service: string;
  entrypoint?: string;
  props?: Record<string, unknown>;
}

/**
 * Service bindings from wrangler.toml that point at this same Worker (`tollgate-<region>`) are
 * rebound to the test Worker itself: wrangler dev resolves them by the environment's worker
 * name, the test pool does not.
 */
function selfBindings(region: string) {
  const config = unstable_readConfig({ config: "./wrangler.toml", env: region });
  const services: ServiceBinding[] = config.services ?? [];
  return Object.fromEntries(
    services
      .filter((s) => s.service === config.name)
      .map((s) => [s.binding, { name: kCurrentWorker, entrypoint: s.entrypoint, props: s.props }]),
  );
}

/**
 * The Workers-runtime suite runs once per region, against that region's wrangler environment.
 * Tests run with the local bindings `npm start` uses: LIMITER_JURISDICTION=none (workerd cannot
 * emulate jurisdictions; the wiring is tested separately, with a recording namespace) and the
 * bundled upstreams.
 */
const workersProject = (region: "us" | "eu") => ({
  plugins: [
    // The agent-server tests hold every response to the reference document (test/workers/agent-server/contract/).
    agentServerContract(),
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml", environment: region },
      miniflare: {
        bindings: { ...LOCAL_BINDINGS },
        serviceBindings: selfBindings(region),
      },
    }),
  ],
  test: {
    name: `workers-${region}`,
    include: ["test/workers/**/*.test.ts"],
    // Real HTTP servers the Worker fetches (a redirecting origin): node-side, shared by the tests.
    globalSetup: ["test/setup/redirecting-origin.ts"],
    testTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    // Logs (denials, injected failures) are printed for failing tests only.
    silent: "passed-only",
    // Each test is printed as it finishes, so a long file (every-rule.test.ts) shows its progress.
    reporters: ["verbose"],
    // Every core (vitest's default leaves one idle: on 2 cores the suite ran serially, 454 s
    // against 281 s with 2 workers, measured 2026-11-23).
    maxWorkers: Math.max(2, availableParallelism()),
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
          // A ceiling, not a speed check: commands spawned by tests start slowly on a busy machine.
          testTimeout: 30_000,
          include: ["test/unit/**/*.test.ts"],
          benchmark: { include: ["bench/**/*.bench.ts"] },
        },
      },
      workersProject("us"),
      workersProject("eu"),
    ],
  },
});
