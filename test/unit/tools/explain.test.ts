import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { hmacHex } from "../support/hmac.ts";
import { execFileAsync } from "../support/processes.ts";
import { explainCommand } from "../../../tools/explain-command.ts";

/**
 * The command in this process, answering as a spawned one does: its output, or a rejection with
 * its exit `code` and stderr. `spawned` runs it as a user does, once per behaviour of the command line.
 */
async function explain(...args: string[]): Promise<{ stdout: string; stderr: string }> {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const text = (lines: string[]) => lines.map((line) => `${line}\n`).join("");
  const code = await explainCommand(args, {}, { out: (line) => stdout.push(line), err: (line) => stderr.push(line) });
  if (code !== 0) throw Object.assign(new Error(`explain exited ${code}`), { code, stdout: text(stdout), stderr: text(stderr) });
  return { stdout: text(stdout), stderr: text(stderr) };
}
const spawned = (...args: string[]) => execFileAsync(process.execPath, ["tools/explain.ts", ...args], { cwd: process.cwd() });
const SECRET = "a-test-secret-of-at-least-32-bytes!!";

describe("npm run explain", () => {
  it("names the rule, its limit in the region and the hashed counter key", async () => {
    const { stdout } = await explain("POST", "/runs/query", "-H", "x-api-key: k", "--secret", SECRET, "--json");
    const out = JSON.parse(stdout);
    expect(out.rule).toMatchObject({ id: 12, name: "runs-query-key" });
    expect(out.limit).toEqual({ region: "us", count: 15, interval: 10 });
    expect(out.matcher).toBe("POST exact /runs/query");
    expect(out.counter).toBe(`us:12:${hmacHex(SECRET, "api-key:k")}`);
    expect(out.passedOver.map((v: { id: number; outcome: string }) => [v.id, v.outcome])).toEqual([
      [13, "no-identity"],
      [25, "outranked"],
      [26, "no-identity"],
      [29, "outranked"],
    ]);
  });

  it("uses the region's limits and normalizes the path as the gateway does", async () => {
    const { stdout } = await explain("GET", "/%72uns%2Fstats", "-H", "x-api-key: k", "--region", "eu", "--json");
    const out = JSON.parse(stdout);
    expect(out.request.path).toBe("/runs/stats");
    expect(out.request.upstreamPath).toBe("/%72uns%2Fstats");
    // A spelling the upstream would route as another path is refused, as the gateway refuses it.
    await expect(explain("GET", "//runs/./stats/", "-H", "x-api-key: k")).rejects.toMatchObject({
      stderr: expect.stringContaining('Send "/runs/stats" instead.'),
    });
    expect(out.rule.id).toBe(28);
    expect(out.limit).toEqual({ region: "eu", count: 20, interval: 10 });
  });

  it("takes the upstream into account: the agent server's paths are counted by its own table", async () => {
    // As npm start reads it: below /agent-server is the agent server.
    const mounted = JSON.parse((await explain("POST", "/agent-server/runs/wait", "-H", "x-api-key: k", "--json")).stdout);
    expect(mounted).toMatchObject({ upstream: "agent-server", table: "agent-server", rule: { id: 201, name: "agent-server-default-key" } });
    expect(mounted.request.upstreamPath).toBe("/runs/wait");
    // Refused below the mount as the gateway refuses it: the spelling reaches the upstream as sent.
    await expect(explain("GET", "/agent-server//info", "-H", "x-api-key: k")).rejects.toMatchObject({
      stderr: expect.stringContaining("empty segment"),
    });
    // The same path at the root is the hosted API's.
    const root = JSON.parse((await explain("POST", "/runs/wait", "-H", "x-api-key: k", "--json")).stdout);
    expect(root).toMatchObject({ upstream: "hosted-api", rule: { id: 25 } });
    // --upstream reads the path as that upstream's own (its host, deployed).
    const { stdout } = await explain("POST", "/runs/wait", "--upstream", "agent-server");
    expect(stdout).toContain('row 203 "agent-server-public-ip"');
    expect(stdout).toContain("precedence: 4 of 4 (specific rows in table order, then the defaults 201 and 202, then the catch-all 203)");
    await expect(explain("GET", "/x", "--upstream", "billing")).rejects.toMatchObject({
      stderr: expect.stringContaining("--upstream: must be one of hosted-api, control-plane, agent-server"),
    });
  });

  it("reads a deployment's agent server as the gateway does: counted on its own path, forwarded below /deployments/<id>", async () => {
    const id = "5b0c3a1e-9f2d-4c8a-8e1b-2a7f6d4c9e01";
    for (const path of [`/deployments/${id}/info`, `/%64eployments/${id}/./info`, `/agent-server/deployments/${id}/info`]) {
      const read = JSON.parse((await explain("GET", path, "--json")).stdout);
      expect(read, path).toMatchObject({
        upstream: "agent-server",
        rule: { id: 200, name: "agent-server-high-throughput-ip" },
        request: { path: "/info", upstreamPath: `/deployments/${id}/info` },
      });
    }
    const hosted = JSON.parse((await explain("GET", `/deployments/${id}/info`, "--upstream", "agent-server", "--json")).stdout);
    expect(hosted).toMatchObject({ rule: { id: 200 }, request: { path: "/info", upstreamPath: `/deployments/${id}/info` } });
  });

  it("names the counter only with the region's secret (no unkeyed digest, ever), and never prints the raw key", async () => {
    const keyed = await explain("GET", "/x", "-H", "x-api-key: sk-raw-123", "--secret", SECRET);
    expect(keyed.stdout).toContain(`counter:    us:25:${hmacHex(SECRET, "api-key:sk-raw-123")}`);
    expect(keyed.stdout).not.toContain("sk-raw-123");
    const unkeyed = await explain("GET", "/x", "-H", "x-api-key: sk-raw-123", "--json");
    expect(JSON.parse(unkeyed.stdout)).toMatchObject({ counter: null, hash: "hmac-sha256" });
    expect(unkeyed.stdout).not.toContain(createHash("sha256").update("api-key:sk-raw-123").digest("hex"));
  });

  it("explains a request without identity headers as the catch-all, in words", async () => {
    const { stdout } = await explain("GET", "/auth");
    expect(stdout).toContain('rule met:   row 29 "public-ip"');
    expect(stdout).toMatch(/row  2 "auth-key" .*not applied, the request has no x-api-key header/);
  });

  it("shows the alias root and reads a run id in any spelling as the gateway does", async () => {
    const uuid = "67e55044-10b1-426f-9247-bb680e5fe0c8";
    const { stdout } = await explain("GET", `/api/v1/runs/{${uuid.toUpperCase()}}`, "-H", "x-api-key: k", "--json");
    const out = JSON.parse(stdout);
    expect(out.rule.id).toBe(23);
    expect(out.root).toBe("/api/v1");
    expect(out.matcher).toBe("GET (or HEAD) template /runs/{uuid} under /api/v1");
    // Forwarded as sent (the URL parser's encoding of the braces): pydantic reads the same run.
    expect(out.request.upstreamPath).toBe(`/api/v1/runs/%7B${uuid.toUpperCase()}%7D`);
    const text = await explain("POST", "/api/v1/runs/query", "-H", "x-api-key: k");
    expect(text.stdout).toContain("root:       /api/v1 is an alias of /");
  });

  it("refuses repeated identity headers and method overrides the way the gateway does", async () => {
    const refused = { code: 2, stderr: expect.stringContaining("the gateway would refuse this request with 400: Header x-api-key must be sent once") };
    await expect(explain("GET", "/runs/stats", "-H", "x-api-key: a", "-H", "X-Api-Key: b")).rejects.toMatchObject(refused);
    await expect(explain("GET", "/runs/stats", "-H", "x-api-key: a,b")).rejects.toMatchObject(refused);
    await expect(explain("GET", "/runs/query", "-H", "x-http-method-override: POST")).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringContaining("Header x-http-method-override is not accepted"),
    });
  });

  it("exits 2 with one clear line for a malformed path or bad arguments", async () => {
    await expect(explain("GET", "/runs/%zz")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining("400") });
    // As a user runs it: the exit status and the one line on stderr.
    await expect(spawned("GET")).rejects.toMatchObject({
      code: 2,
      stderr: "explain: expected METHOD and PATH (got 1 operand) (npm run explain -- --help lists every option)\n",
    });
    await expect(explain("GET", "/", "--region", "mars")).rejects.toMatchObject({ code: 2 });
    await expect(explain("FOO", "/")).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('METHOD: "FOO"') });
  });

  it("explains itself with --help", async () => {
    const { stdout } = await spawned("--help");
    expect(stdout).toContain("usage: npm run explain -- METHOD PATH [options]");
    expect(stdout).toContain("examples:");
  });
});
