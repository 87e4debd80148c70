import { describe, expect, it } from "vitest";
import { banner, regionOf, varOf, withPublicHost } from "../../../../tools/local-edge/main.ts";
import { WranglerOutputFilter } from "../../../../tools/local-edge/wrangler-output.ts";

// As wrangler 4.156 prints it at start-up of npm start's session (the gateway and the emulator
// Workers: local-config.ts), colours included on a terminal, then a request, a log line, a warning.
const STARTUP = `tollgate-us has access to the following bindings:
Binding                                                  Resource                  Mode
env.COUNTERS (CounterObject)                                Durable Object            local
env.HOSTED_API (tollgate-hosted-api-us)                  Worker                    local [connected]

Service bindings, Durable Object bindings, and Tail consumers connect to other Wrangler or Vite dev processes running locally.
tollgate-agent-server-us has access to the following bindings:
Binding                                                Resource                  Mode
env.AGENT_SERVER_STATE (AgentServerState)              Durable Object            local

⎔ Starting local server...
\x1b[32m[wrangler:info]\x1b[0m Ready on http://127.0.0.1:41234
[wrangler:info] GET /runs/stats 200 OK (40ms)
{"event":"denied","region":"us","rule":28,"counter":"us:28:ab","retryAfter":10}
\x1b[33m▲ \x1b[43;33m[\x1b[43;30mWARNING\x1b[43;33m]\x1b[0m \x1b[1mProcessing emulators/hosted-api/wrangler.toml configuration:\x1b[0m
▲ [WARNING] something worth reading
⎔ Reloading local server...`;

describe("npm start's output", () => {
  it("drops the bindings tables and the private port, keeps logs, requests and every warning", () => {
    const filter = new WranglerOutputFilter(41234);
    expect(STARTUP.split("\n").filter((line) => filter.keep(line))).toEqual([
      "[wrangler:info] GET /runs/stats 200 OK (40ms)",
      '{"event":"denied","region":"us","rule":28,"counter":"us:28:ab","retryAfter":10}',
      "\x1b[33m▲ \x1b[43;33m[\x1b[43;30mWARNING\x1b[43;33m]\x1b[0m \x1b[1mProcessing emulators/hosted-api/wrangler.toml configuration:\x1b[0m",
      "▲ [WARNING] something worth reading",
      "⎔ Reloading local server...",
    ]);
  });

  it("keeps a Ready line for any other port", () => {
    expect(new WranglerOutputFilter(1).keep("[wrangler:info] Ready on http://127.0.0.1:41234")).toBe(true);
  });

  it("names the region and where each upstream answers", () => {
    expect(regionOf(["--env", "eu", "--var", "A:b"])).toBe("eu");
    expect(regionOf(["--env=us"])).toBe("us");
    const text = banner("http://127.0.0.1:8787", "eu");
    expect(text).toContain("tollgate is ready on http://127.0.0.1:8787, enforcing the EU limits (rules/*.json).");
    expect(text).toContain("control plane  http://127.0.0.1:8787/v2/...   (emulator Worker, bound as a service; client base URL http://127.0.0.1:8787)");
    expect(text).toContain(
      "agent server   http://127.0.0.1:8787/agent-server/...   (emulator Worker, bound as a service; client base URL http://127.0.0.1:8787/agent-server)",
    );
    // Quiet (the default log level): the banner says how to see each request.
    expect(text).not.toContain("--log-level info");
    expect(banner("http://127.0.0.1:8787", "eu", undefined, true)).toContain("logs           warnings only; npm start -- --log-level info");
  });

  it("names the user's own agent server when AGENT_SERVER_ORIGIN points at one (the last --var wins, as in wrangler)", () => {
    const args = ["--var", "AGENT_SERVER_ORIGIN:service", "--var", "AGENT_SERVER_ORIGIN:http://127.0.0.1:2024"];
    expect(varOf(args, "AGENT_SERVER_ORIGIN")).toBe("http://127.0.0.1:2024");
    expect(varOf(["--var=AGENT_SERVER_ORIGIN:http://x:1"], "AGENT_SERVER_ORIGIN")).toBe("http://x:1");
    expect(varOf(["--port", "1"], "AGENT_SERVER_ORIGIN")).toBeUndefined();
    const text = banner("http://127.0.0.1:8787", "us", undefined, false, "http://127.0.0.1:2024");
    expect(text).toContain("(yours, at http://127.0.0.1:2024; client base URL http://127.0.0.1:8787/agent-server)");
    expect(text).not.toContain("your own ");
    expect(banner("http://127.0.0.1:8787", "us", undefined, false, "service")).toContain(
      "agent server   http://127.0.0.1:8787/agent-server/...   (emulator Worker",
    );
  });

  it("gives the user's own agent server the public host, unless AGENT_SERVER_HOST was chosen", () => {
    const own = ["--var", "AGENT_SERVER_ORIGIN:service", "--var", "AGENT_SERVER_ORIGIN:http://127.0.0.1:2024"];
    expect(varOf(withPublicHost(own), "AGENT_SERVER_HOST")).toBe("public");
    expect(varOf(withPublicHost([...own, "--var", "AGENT_SERVER_HOST:origin"]), "AGENT_SERVER_HOST")).toBe("origin");
    expect(withPublicHost(["--var", "AGENT_SERVER_ORIGIN:service"])).toEqual(["--var", "AGENT_SERVER_ORIGIN:service"]);
  });
});
