import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { experimental_readRawConfig, unstable_readConfig } from "wrangler";
import { EMULATOR_NAMES, emulatorConfig, emulatorLinks, localServices } from "../../../../tools/emulator-workers.ts";
import { sessionWorkerName, withLocalServices, withSessionEnvironment } from "../../../../tools/local-edge/local-config.ts";

// npm start's config: wrangler.toml plus the service bindings only local runs have.
const rawConfig = () => experimental_readRawConfig({ config: "wrangler.toml" }).rawConfig as Record<string, unknown>;

describe("npm start's wrangler config", () => {
  it("adds each upstream's binding to the emulator Worker, in the region npm start runs, and nothing else", async () => {
    const services = await localServices();
    expect(services).toEqual({ HOSTED_API: "tollgate-hosted-api", CONTROL_PLANE: "tollgate-control-plane", AGENT_SERVER: "tollgate-agent-server" });
    const config = withLocalServices(rawConfig(), "eu", services) as { env: Record<string, { services?: unknown }> };
    expect(config.env.eu!.services).toEqual([
      { binding: "HOSTED_API", service: "tollgate-hosted-api" },
      { binding: "CONTROL_PLANE", service: "tollgate-control-plane" },
      { binding: "AGENT_SERVER", service: "tollgate-agent-server" },
    ]);
    expect(config.env.us!.services).toBeUndefined();
    const { env: _a, ...rest } = config;
    const { env: _b, ...original } = rawConfig();
    expect(rest).toEqual(original);
  });

  it("gives each emulator the session's environment: wrangler reads it in `--env` without a warning, under <name>-<env>, with its own bindings and its links", async () => {
    const dir = await mkdtemp(join(tmpdir(), "emulator-configs-"));
    const warnings = vi.spyOn(console, "warn");
    try {
      for (const region of ["us", "eu"]) {
        for (const emulator of EMULATOR_NAMES) {
          const config = emulatorConfig(emulator);
          const raw = experimental_readRawConfig({ config }).rawConfig as Record<string, unknown>;
          const links = await emulatorLinks(emulator, EMULATOR_NAMES, (worker) => sessionWorkerName(worker, region));
          const copy = join(dir, `${emulator}.${region}.json`);
          await writeFile(copy, JSON.stringify(withSessionEnvironment(raw, region, links)));
          // What wrangler dev itself reads for the copy in the session's environment.
          const read = unstable_readConfig({ config: copy, env: region });
          const own = unstable_readConfig({ config });
          expect(read.name).toBe(sessionWorkerName(own.name!, region));
          expect([read.vars, read.durable_objects, read.migrations, read.compatibility_date]).toEqual([
            own.vars,
            own.durable_objects,
            own.migrations,
            own.compatibility_date,
          ]);
          expect(read.services).toEqual([...(own.services ?? []), ...Object.entries(links).map(([binding, link]) => ({ binding, ...link }))]);
        }
      }
      expect(warnings).not.toHaveBeenCalled();
      // The control plane links to the agent server's provisioning entrypoint, by its session name.
      const links = await emulatorLinks("control-plane", EMULATOR_NAMES, (worker) => sessionWorkerName(worker, "us"));
      expect(Object.values(links)).toEqual([{ service: "tollgate-agent-server-us", entrypoint: "DeploymentProvisioning" }]);
    } finally {
      warnings.mockRestore();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("refuses an emulator config with environments of its own", () => {
    expect(() => withSessionEnvironment({ name: "x", env: { us: {} } }, "us")).toThrow("declares no environments");
  });

  it("adds the session's variables (LOCAL_EDGE_SECRET) to the region's own, which it keeps", () => {
    const config = withLocalServices(rawConfig(), "us", {}, { LOCAL_EDGE_SECRET: "s" }) as { env: Record<string, { vars?: Record<string, unknown> }> };
    const declared = (rawConfig() as { env: Record<string, { vars: Record<string, unknown> }> }).env.us!.vars;
    expect(config.env.us!.vars).toEqual({ ...declared, LOCAL_EDGE_SECRET: "s" });
    expect(config.env.eu!.vars).not.toHaveProperty("LOCAL_EDGE_SECRET");
  });

  it("refuses a region the config does not have, and a binding the config already declares", () => {
    expect(() => withLocalServices(rawConfig(), "apac", { HOSTED_API: "x" })).toThrow("wrangler.toml has no [env.apac]");
    const declared = { env: { us: { services: [{ binding: "HOSTED_API", service: "elsewhere" }] } } };
    expect(() => withLocalServices(declared, "us", { HOSTED_API: "tollgate-hosted-api" })).toThrow("binds HOSTED_API itself");
  });
});
