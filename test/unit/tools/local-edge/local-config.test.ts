import { describe, expect, it } from "vitest";
import { experimental_readRawConfig, unstable_readConfig } from "wrangler";
import { localServices } from "../../../../tools/emulator-workers.ts";
import { sessionWorkerName, withLocalServices } from "../../../../tools/local-edge/local-config.ts";

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

  it("names the emulators as wrangler dev runs a config without the session's environment: <name>-<env>", () => {
    // What wrangler itself reads for an emulator config in `--env us` (it also warns, which npm start hides).
    const { name } = unstable_readConfig({ config: "emulators/control-plane/wrangler.toml", env: "us" });
    expect(name).toBe(sessionWorkerName("tollgate-control-plane", "us"));
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
