// gatewaySettings: the settings schema (src/gateway/settings-schema.ts) applied to this run's
// wrangler environment, read once per env object.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../src/env.ts";
import { gatewaySettings } from "../../../src/gateway/settings.ts";
import { SettingError } from "../../../src/http/setting-error.ts";

afterEach(() => vi.restoreAllMocks());

describe("gatewaySettings", () => {
  it("reads this environment with the local runs' variables on top (tools/local-bindings.ts)", () => {
    const settings = gatewaySettings(env);
    expect(settings).toMatchObject({
      region: env.REGION,
      jurisdiction: undefined, // COUNTER_JURISDICTION=none: workerd has no jurisdictions
      routing: { kind: "paths" },
      identitiesInTelemetry: env.REGION !== "eu",
      failMode: "open",
      counterTimeoutMs: 1_000,
      upstreamTimeoutMs: 30_000,
      hmacSecret: env.IDENTITY_HMAC_SECRET,
      timeScale: 1,
      algorithm: "sliding-window",
      overridesRefreshMs: 5_000,
      decisionLogSample: 0.01,
      metricsFlushMs: 10_000,
    });
    expect(settings.upstreams).toEqual({
      "hosted-api": { kind: "binding", fetcher: env.HOSTED_API },
      "control-plane": { kind: "binding", fetcher: env.CONTROL_PLANE },
      "agent-server": { kind: "binding", fetcher: env.AGENT_SERVER },
    });
  });

  it("parses once per env object, however many callers ask", () => {
    const first = gatewaySettings(env);
    const other = { ...env } as Env;
    const second = gatewaySettings(other);
    expect(second).not.toBe(first);
    expect(second).toEqual(first);
    expect(gatewaySettings(env)).toBe(first); // not only the last env is kept
    expect(gatewaySettings(other)).toBe(second);
  });

  it("remembers a mistake: every call answers it, the log hears of it once", () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const broken = { ...env, FAIL_MODE: "shut" } as Env;
    for (let i = 0; i < 3; i++) {
      expect(() => gatewaySettings(broken)).toThrow(SettingError);
      expect(() => gatewaySettings(broken)).toThrow('gateway misconfigured: FAIL_MODE: Invalid option: expected one of "open"|"closed"');
    }
    expect(log.mock.calls.filter(([line]) => String(line).includes("gateway_misconfigured"))).toHaveLength(1);
  });

  it("takes an upstream's origin URL even where its service binding is bound: the binding only for `service`", () => {
    expect(env.HOSTED_API).toBeDefined();
    const settings = gatewaySettings({ ...env, HOSTED_API_ORIGIN: "https://hosted-api.test/base/" } as Env);
    expect(settings.upstreams["hosted-api"]).toMatchObject({ kind: "origin", base: "https://hosted-api.test/base" });
    expect(settings.upstreams["control-plane"]).toMatchObject({ kind: "binding" });
  });

  it("never falls back to plain digests: no IDENTITY_HMAC_SECRET is a 503 naming it", () => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    const unset = { ...env, IDENTITY_HMAC_SECRET: undefined } as Env;
    let error: unknown;
    try {
      gatewaySettings(unset);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(SettingError);
    expect(error).toMatchObject({ setting: "IDENTITY_HMAC_SECRET", status: 503 });
  });

  /** The setting a mistake names, or undefined when the settings parse. */
  const mistake = (vars: Partial<Env>) => {
    vi.spyOn(console, "log").mockImplementation(() => {});
    try {
      gatewaySettings({ ...env, ...vars } as Env);
      return undefined;
    } catch (error) {
      return (error as SettingError).setting;
    }
  };

  it("tells the client's address to the hosted API and the control plane unless FORWARD_CLIENT_ADDRESS says otherwise, as the EU environment does", () => {
    // Unset, the default; the EU environment sets "none" (wrangler.toml), the US leaves it unset.
    expect([...gatewaySettings({ ...env, FORWARD_CLIENT_ADDRESS: undefined } as Env).forwardClientAddress].sort()).toEqual(["control-plane", "hosted-api"]);
    expect([...gatewaySettings({ ...env } as Env).forwardClientAddress].sort()).toEqual(env.REGION === "eu" ? [] : ["control-plane", "hosted-api"]);
    expect([...gatewaySettings({ ...env, FORWARD_CLIENT_ADDRESS: "none" } as Env).forwardClientAddress]).toEqual([]);
    expect([...gatewaySettings({ ...env, FORWARD_CLIENT_ADDRESS: " agent-server " } as Env).forwardClientAddress]).toEqual(["agent-server"]);
    expect(mistake({ FORWARD_CLIENT_ADDRESS: "agent-server, agents" })).toBe("FORWARD_CLIENT_ADDRESS");
  });

  it("sends an agent server at an origin the public host only when AGENT_SERVER_HOST=public, and refuses it for an origin with a path", () => {
    expect(gatewaySettings({ ...env } as Env).agentServerPublicHost).toBe(false);
    expect(gatewaySettings({ ...env, AGENT_SERVER_HOST: "public", AGENT_SERVER_ORIGIN: "https://agents.example.com" } as Env).agentServerPublicHost).toBe(true);
    expect(mistake({ AGENT_SERVER_HOST: "public", AGENT_SERVER_ORIGIN: "https://example.com/agents" })).toBe("AGENT_SERVER_HOST");
    expect(mistake({ AGENT_SERVER_HOST: "host" })).toBe("AGENT_SERVER_HOST");
  });
});
