// The real agent server's launcher and command (tools/real-agent-server) without starting
// anything: the project copy each server gets, the CLI's arguments, what keeps it offline,
// npm start's arguments, and where npm start's banner tells a user how to use their own server.
import { existsSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { banner } from "../../../tools/local-edge/main.ts";
import { npmStartArguments } from "../../../tools/real-agent-server/gateway.ts";
import { parseArguments } from "../../../tools/real-agent-server/main.ts";
import { devArguments, freshProject, isFree, OFFLINE_ENV, SERVER_PROJECT, startRealAgentServer } from "../../../tools/real-agent-server/server.ts";

const made: string[] = [];
afterEach(() => made.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("a server's own project copy", () => {
  it("names this folder's graphs and routes from a fresh directory, and holds a copy of the UI", () => {
    const dir = freshProject();
    made.push(dir);
    const config = JSON.parse(readFileSync(join(dir, "langgraph.json"), "utf8"));
    expect(Object.keys(config.graphs).sort()).toEqual(["agent", "approval", "slow"]);
    for (const spec of [...Object.values(config.graphs), config.http.app] as string[]) {
      const [file] = spec.split(":");
      // Relative to the new directory: the server joins it to its project's path.
      expect(file!.startsWith("/")).toBe(false);
      expect(resolve(dir, file!).startsWith(SERVER_PROJECT)).toBe(true);
      expect(existsSync(resolve(dir, file!))).toBe(true);
    }
    expect(readFileSync(join(dir, config.ui.agent), "utf8")).toBe(readFileSync(join(SERVER_PROJECT, "ui/agent.ts"), "utf8"));
    expect(readFileSync(join(dir, ".gitignore"), "utf8")).toContain(".langgraph_api");
  });

  it("starts a state of its own each time (two copies, two directories)", () => {
    const [a, b] = [freshProject(), freshProject()];
    made.push(a, b);
    expect(a).not.toBe(b);
  });
});

describe("langgraphjs dev, offline", () => {
  it("binds the loopback port, opens no browser, reloads nothing and names the Studio host itself", () => {
    expect(devArguments("/p/langgraph.json", "127.0.0.1", 19700)).toEqual([
      "dev",
      "--config",
      "/p/langgraph.json",
      "--host",
      "127.0.0.1",
      "--port",
      "19700",
      "--no-browser",
      "--no-reload",
      "--studio-url",
      "http://127.0.0.1:19700",
    ]);
  });

  it("turns off LangSmith tracing under every name the server reads, the CLI's analytics and the browser", () => {
    expect(OFFLINE_ENV).toMatchObject({
      LANGGRAPH_CLI_NO_ANALYTICS: "1",
      LANGSMITH_TRACING: "false",
      LANGSMITH_TRACING_V2: "false",
      LANGCHAIN_TRACING: "false",
      LANGCHAIN_TRACING_V2: "false",
      BROWSER: "none",
    });
  });
});

describe("npm start in front", () => {
  it("passes the origin as AGENT_SERVER_ORIGIN, the ports, the state directory and more settings as --var", () => {
    expect(npmStartArguments("http://127.0.0.1:19700", 19701, 19702, "/tmp/s", { UPSTREAM_TIMEOUT_MS: "3000" })).toEqual([
      "--port",
      "19701",
      "--private-port",
      "19702",
      "--persist-to",
      "/tmp/s",
      "--var",
      "AGENT_SERVER_ORIGIN:http://127.0.0.1:19700",
      "--var",
      "UPSTREAM_TIMEOUT_MS:3000",
    ]);
  });

  it("its banner says how to put one's own agent server behind it", () => {
    expect(banner("http://127.0.0.1:8787", "us")).toMatch(/npm start -- --var AGENT_SERVER_ORIGIN:http:\/\/127\.0\.0\.1:2024 .*docs\/real-agent-server\.md/);
  });
});

describe("npx node tools/real-agent-server/main.ts", () => {
  it("takes --port (2024 by default) and --gateway-port, either form", () => {
    expect(parseArguments([])).toEqual({ port: 2024 });
    expect(parseArguments(["--port", "19790", "--gateway-port=19791"])).toEqual({ port: 19790, gatewayPort: 19791 });
  });

  it("refuses an unknown option or a port that is not one", () => {
    expect(() => parseArguments(["--host", "0.0.0.0"])).toThrow(/unknown option --host/);
    expect(() => parseArguments(["--port", "http"])).toThrow(/--port must be a port number/);
  });
});

describe("a port already taken", () => {
  it("is refused before anything starts, so no other server answers the readiness check in its place", async () => {
    const taken = net.createServer();
    await new Promise<void>((listening) => taken.listen(0, "127.0.0.1", listening));
    const { port } = taken.address() as net.AddressInfo;
    try {
      expect(await isFree(port)).toBe(false);
      await expect(startRealAgentServer({ port })).rejects.toThrow(`port ${port} is taken`);
    } finally {
      await new Promise((closed) => taken.close(closed));
    }
    expect(await isFree(port)).toBe(true);
  });
});
