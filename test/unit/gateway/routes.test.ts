import { describe, expect, it } from "vitest";
import { localPathFor, localRoute, mountFor, parseUpstreamHosts, upstreamForHost } from "../../../src/gateway/routes.ts";

describe("UPSTREAM_HOSTS", () => {
  const routes = parseUpstreamHosts(
    " api.example.com=hosted-api,control.example.com = control-plane, *.agents.example.com=agent-server, *.eu.agents.example.com=hosted-api ",
  );

  it("picks by exact host, then the longest wildcard suffix; nothing else", () => {
    expect(upstreamForHost(routes, "api.example.com")).toBe("hosted-api");
    expect(upstreamForHost(routes, "CONTROL.example.com.")).toBe("control-plane");
    expect(upstreamForHost(routes, "d1.agents.example.com")).toBe("agent-server");
    expect(upstreamForHost(routes, "d1.eu.agents.example.com")).toBe("hosted-api");
    expect(upstreamForHost(routes, "agents.example.com")).toBeUndefined();
    expect(upstreamForHost(routes, "xagents.example.com")).toBeUndefined();
    expect(upstreamForHost(routes, "api.example.com.evil.net")).toBeUndefined();
  });

  it.each([
    ["", /lists no host/],
    ["a.com", /not host=upstream/],
    ["a.com=hosted-api=x", /not host=upstream/],
    ["*=hosted-api", /not host=upstream/],
    ["a.*.com=hosted-api", /not host=upstream/],
    ["a.com:8080=hosted-api", /not host=upstream/],
    ["a.com=billing", /upstream must be one of/],
    ["a.com=hosted-api,A.com=control-plane", /listed twice/],
  ])("refuses %j", (text, message) => {
    expect(() => parseUpstreamHosts(text)).toThrow(message);
  });
});

describe("local mounts", () => {
  it.each([
    ["/agent-server/runs/wait", "agent-server", "/runs/wait"],
    ["/agent-server", "agent-server", "/"],
    ["/agent-server/", "agent-server", "/"],
    ["/agent-server/store/items/a%2Fb", "agent-server", "/store/items/a/b"],
    ["/v2/deployments", "control-plane", "/v2/deployments"],
    ["/v1/integrations/github/install", "control-plane", "/v1/integrations/github/install"],
    ["/v1/integrations", "control-plane", "/v1/integrations"],
    ["/v1/integrationsx", "hosted-api", "/v1/integrationsx"],
    ["/v1/metadata/submit", "hosted-api", "/v1/metadata/submit"],
    ["/runs/wait", "hosted-api", "/runs/wait"],
    ["/agent-serverx", "hosted-api", "/agent-serverx"],
  ])("%s is the %s's %s", (raw, upstream, path) => {
    const route = localRoute(raw);
    expect(route.upstream).toBe(upstream);
    expect(decodeURIComponent(route.rawPath)).toBe(path);
  });

  it("chooses on the canonical path", () => {
    expect(localRoute("/a/../agent-server/info").upstream).toBe("agent-server");
    expect(localRoute("//agent-server//info").upstream).toBe("agent-server");
    expect(mountFor("/v2").upstream).toBe("control-plane");
    expect(localRoute("/v1/x/../integrations/forge/github/install").upstream).toBe("control-plane");
    expect(localPathFor("control-plane", "/v1/integrations/github/install")).toBe("/v1/integrations/github/install");
    expect(localPathFor("control-plane", "/v2/deployments")).toBe("/v2/deployments");
  });
});
