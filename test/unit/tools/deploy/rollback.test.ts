import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { forkCheckout, healthEndpoint, healthyScenario, NEW, OLD, OLDER, runTool, spawnTool } from "./support.ts";

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function setUp(healthy: boolean) {
  const root = forkCheckout();
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const endpoint = await healthEndpoint(() => (healthy ? { status: 200, body: { status: "ok" } } : { status: 503, body: { status: "unavailable" } }));
  cleanups.push(endpoint.close);
  return { config: join(root, "wrangler.toml"), endpoint, fast: ["--probe-interval", "0", "--probe-attempts", "2", "--probe-url", endpoint.url] };
}

const rollback = (region: string, id: string) => ["rollback", id, "--env", region, "--yes", "--message", `npm run rollback -- ${region}`];

describe("npm run rollback", () => {
  it("goes back to the last version that served 100% before the current deployment, then probes", async () => {
    const { config, endpoint, fast } = await setUp(true);
    // As a user runs it (the other tests call the command in this process).
    const run = await spawnTool(["rollback", "us", "--config", config, ...fast]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // The newest deployment is NEW at 100%; before it a split (no 100%), then OLD at 100%.
    expect(run.calls).toEqual([["deployments", "list", "--env", "us", "--json"], rollback("us", OLD)]);
    expect(endpoint.seen).toHaveLength(1);
    expect(endpoint.seen[0]!["cloudflare-workers-version-overrides"]).toBeUndefined();
    expect(run.stdout).toContain(`rolled back: ${OLD} serves 100% of tollgate-us and is healthy`);
  });

  it("goes to the version given", async () => {
    const { config, fast } = await setUp(true);
    const run = await runTool(["rollback", "eu", OLDER, "--config", config, ...fast]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.calls).toEqual([["deployments", "list", "--env", "eu", "--json"], rollback("eu", OLDER)]);
  });

  it("exits 5 when the version rolled back to is unhealthy", async () => {
    const { config, endpoint, fast } = await setUp(false);
    const run = await runTool(["rollback", "us", "--config", config, ...fast]);
    expect(run.code).toBe(5);
    expect(endpoint.seen).toHaveLength(2);
    expect(run.stdout).toContain(`${OLD} serves 100% of tollgate-us and is UNHEALTHY (503 {"status":"unavailable"} after 2 tries)`);
  });

  it("refuses to roll back to the version already serving, and a wrangler refusal changes nothing", async () => {
    const { config, endpoint, fast } = await setUp(true);
    const same = await runTool(["rollback", "us", NEW, "--config", config, ...fast]);
    expect(same.code).toBe(3);
    expect(same.calls).toEqual([["deployments", "list", "--env", "us", "--json"]]);
    expect(same.stdout).toContain(`${NEW} already serves 100% of tollgate-us`);

    const scenario = {
      ...healthyScenario(),
      rollback: { exit: 1, output: { type: "command-failed", version: 1, message: "Cannot rollback: a Durable Object migration occurred since" } },
    };
    const refused = await runTool(["rollback", "us", "--config", config, ...fast], { scenario });
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain("wrangler rollback failed: Cannot rollback: a Durable Object migration occurred since");
    expect(endpoint.seen).toHaveLength(0);
  });

  it("refuses the repository's example admin host without --probe-url, and a malformed version id", async () => {
    const run = await runTool(["rollback", "us"]);
    expect(run.code).toBe(3);
    expect(run.calls).toEqual([]);
    expect(run.stdout).toContain('wrangler.toml [env.us.vars] ADMIN_HOSTS: "tollgate-admin.us.example.com" is an example host');
    const bad = await runTool(["rollback", "us", "not-a-version"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('rollback: VERSION-ID: "not-a-version" is not a Worker version id');
  });
});

describe("--dry-run", () => {
  it.each(["us", "eu"])("prints the %s plan from the repository alone, runs nothing, and lists what a real deploy would refuse", async (region) => {
    // With the stand-in as wrangler and tsc: nothing is called.
    expect((await runTool(["deploy", region, "--dry-run"])).calls).toEqual([]);
    // As a user runs it: the plan names plain wrangler.
    const run = await runTool(["deploy", region, "--dry-run"], { env: { TOLLGATE_WRANGLER: "", TOLLGATE_TSC: "" } });
    expect(run.code).toBe(0);
    for (const text of [
      `tollgate deploy plan: region ${region}, Worker tollgate-${region}, from wrangler.toml [env.${region}] (dry run: nothing is run)`,
      `api.${region}.example.com             -> hosted-api     origin https://hosted-api.origin.${region}.example.com`,
      `*.agents.${region}.example.com/*        route in zone example.com`,
      `tollgate-admin.${region}.example.com  -> admin API and dashboard`,
      `probe: GET https://tollgate-admin.${region}.example.com/_tollgate/health`,
      `IDENTITY_HMAC_SECRET  required`,
      `wrangler secret list --env ${region} --format json`,
      `wrangler versions upload --env ${region} --message 'npm run deploy -- ${region}'  -> <new>`,
      `wrangler versions deploy <new>@10% <old>@90% --env ${region} --yes --message 'npm run deploy: rollout 10%'`,
      `wrangler triggers deploy --env ${region}`,
      `wrangler deploy --env ${region} --message 'npm run deploy -- ${region} --migrate'`,
      "findings: a real deploy is refused (exit 3) until each is fixed:",
      `wrangler.toml [env.${region}.vars] UPSTREAM_HOSTS: "api.${region}.example.com" is an example host`,
    ]) {
      expect(run.stdout).toContain(text);
    }
  });

  it("prints the rollback plan", async () => {
    const run = await spawnTool(["rollback", "eu", "--dry-run"], { env: { TOLLGATE_WRANGLER: "" } });
    expect(run.code).toBe(0);
    expect(run.calls).toEqual([]);
    expect(run.stdout).toContain("wrangler rollback <previous> --env eu --yes --message 'npm run rollback -- eu'");
  });
});
