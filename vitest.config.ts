import { cloudflareTest } from "@cloudflare/vitest-plugin";
import { kCurrentWorker } from "miniflare";
import { unstable_readConfig } from "wrangler";
import { defineConfig } from "vitest/config";

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
 * workerd cannot emulate Durable Object jurisdictions, so tests use LIMITER_JURISDICTION=none
 * (the jurisdiction wiring is tested separately, with a recording namespace).
 */
const workersProject = (region: "us" | "eu") => ({
  plugins: [
    cloudflareTest({
      wrangler: { configPath: "./wrangler.toml", environment: region },
      miniflare: {
        bindings: { LIMITER_JURISDICTION: "none" },
        serviceBindings: selfBindings(region),
      },
    }),
  ],
  test: {
    name: `workers-${region}`,
    include: ["test/workers/**/*.test.ts"],
    testTimeout: 60_000,
  },
});

export default defineConfig({
  test: {
    // Logs (denials, injected failures) are printed for failing tests only.
    silent: "passed-only",
    projects: [
      {
        test: {
          name: "unit",
          environment: "node",
          include: ["test/unit/**/*.test.ts"],
          benchmark: { include: ["bench/**/*.bench.ts"] },
        },
      },
      workersProject("us"),
      workersProject("eu"),
    ],
  },
});
