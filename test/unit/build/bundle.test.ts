// The deployed bundles, as `wrangler deploy --dry-run` builds them (the same builds CI checks):
// the gateway's us and eu bundles carry none of the emulators, whose Workers build on their own.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unstable_readConfig } from "wrangler";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EMULATOR_NAMES, emulatorConfig, emulatorWorkerOptions } from "../../../tools/emulator-workers.ts";
import { execFileAsync } from "../support/processes.ts";

const ENV = { ...process.env, WRANGLER_SEND_METRICS: "false" };

/** What the test reads of a config's Durable Objects and migrations. */
interface Objects {
  durable_objects: { bindings: Array<{ class_name: string }> };
  migrations: Array<{
    new_sqlite_classes?: string[];
    new_classes?: string[];
    deleted_classes?: string[];
    renamed_classes?: Array<{ from: string; to: string }>;
  }>;
  services?: unknown[];
}
const readObjects = (config: string, env?: string) => unstable_readConfig({ config, env }) as unknown as Objects;
// Ceilings for bundling on a busy machine, not speed checks.
const BUILD_CEILING_MS = 180_000;

/** Names and texts only the emulators have: their classes, modules and answers. */
const EMULATOR_MARKERS = [
  "ControlPlaneWorkspace",
  "AgentServerState",
  "HostedApiEcho",
  "ControlPlaneEmulator",
  "AgentServerEmulator",
  "CONTROL_PLANE_WORKSPACES",
  "AGENT_SERVER_STATE",
  "DeploymentRegistry",
  "DeploymentProvisioning",
  "x-echo-upstream",
  "createControlPlane",
  "createAgentServer",
  "There was an error parsing the body",
  "sandboxes/templates",
  "emulators/",
];

describe.each(["us", "eu"] as const)("the gateway's %s bundle", (region) => {
  let outdir: string;
  let bundle: string;
  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), `tollgate-bundle-${region}-`));
    await execFileAsync("npx", ["wrangler", "deploy", "--dry-run", "--env", region, "--outdir", outdir], { env: ENV });
    bundle = await readFile(join(outdir, "index.js"), "utf8");
  }, BUILD_CEILING_MS);
  afterAll(() => rm(outdir, { recursive: true, force: true }));

  it("is really the gateway's", () => {
    expect(bundle).toContain("CounterObject = class extends DurableObject");
  });

  it("has no esbuild __name wrappers (keep_names = false): they cost every call on the hot path", () => {
    expect(bundle).not.toMatch(/\b__name\(/);
  });

  it("contains no emulator code, class or module", () => {
    const found = EMULATOR_MARKERS.filter((marker) => bundle.includes(marker));
    expect(found).toEqual([]);
  });

  it("binds no emulator: no service bindings, no emulator Durable Objects; its migrations delete the emulator classes", () => {
    const config = readObjects("wrangler.toml", region);
    expect(config.services ?? []).toEqual([]);
    expect(config.durable_objects.bindings.map((b) => b.class_name).sort()).toEqual(["CounterObject", "MetricsStore", "OverridesStore", "SlotsObject"]);
    expect(config.migrations.flatMap((m) => m.deleted_classes ?? []).sort()).toEqual(["AgentServerState", "ControlPlaneWorkspace"]);
    // The classes the migrations leave, applied in order (made, renamed, deleted): exactly the
    // gateway's, so no emulator object outlives its class and no binding lacks its migration.
    const live = new Set<string>();
    for (const m of config.migrations) {
      for (const c of [...(m.new_sqlite_classes ?? []), ...(m.new_classes ?? [])]) live.add(c);
      for (const { from, to } of m.renamed_classes ?? []) {
        expect(live.delete(from)).toBe(true);
        live.add(to);
      }
      for (const c of m.deleted_classes ?? []) expect(live.delete(c)).toBe(true);
    }
    expect([...live].sort()).toEqual(["CounterObject", "MetricsStore", "OverridesStore", "SlotsObject"]);
  });
});

describe("the emulator Workers", () => {
  let outdir: string;
  let workers: Awaited<ReturnType<typeof emulatorWorkerOptions>>;
  beforeAll(async () => {
    outdir = await mkdtemp(join(tmpdir(), "tollgate-emulator-bundles-"));
    // `wrangler deploy --dry-run -c emulators/<name>/wrangler.toml`, each on its own.
    workers = await emulatorWorkerOptions(outdir);
  }, BUILD_CEILING_MS);
  afterAll(() => rm(outdir, { recursive: true, force: true }));

  it.each(EMULATOR_NAMES)("%s builds on its own, with its own Durable Objects and migrations", async (name) => {
    const config = readObjects(emulatorConfig(name));
    const { name: workerName } = unstable_readConfig({ config: emulatorConfig(name) });
    const worker = workers[EMULATOR_NAMES.indexOf(name)] as { name: string; modules: Array<{ path: string }> };
    expect(worker.name).toBe(workerName);
    const code = await readFile(worker.modules[0]!.path, "utf8");
    for (const { class_name } of config.durable_objects.bindings) {
      expect(code).toMatch(new RegExp(`\\b${class_name} = class extends DurableObject`));
      expect(config.migrations.flatMap((m) => m.new_sqlite_classes ?? [])).toContain(class_name);
    }
    // None of the gateway's code rides along.
    expect(code).not.toContain("CounterObject");
  });
});
