import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CHECK_CALLS, forkCheckout, healthEndpoint, healthyScenario, NEW, OLD, runTool, spawnTool, versionsDeploy } from "./support.ts";

const OK = { status: 200, body: { status: "ok" } };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function fork(edit?: (toml: string) => string) {
  const root = forkCheckout(edit);
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return join(root, "wrangler.toml");
}

async function health(answer: Parameters<typeof healthEndpoint>[0]) {
  const endpoint = await healthEndpoint(answer);
  cleanups.push(endpoint.close);
  return endpoint;
}

const fast = (url: string) => ["--soak", "0", "--probe-interval", "0", "--probe-attempts", "2", "--probe-url", url];

describe("npm run deploy", () => {
  it("checks, uploads, rolls out in steps with a pinned probe after each, applies the routes, probes again", async () => {
    const config = await fork();
    const endpoint = await health(() => OK);
    // As a user runs it (the other tests call the command in this process): its token from the environment.
    const run = await spawnTool(["deploy", "us", "--config", config, ...fast(endpoint.url)], { env: { TOLLGATE_ADMIN_TOKEN: "probe-token-123" } });

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.calls).toEqual([
      ...CHECK_CALLS("us"),
      ["deployments", "status", "--env", "us", "--json"],
      ["versions", "upload", "--env", "us", "--message", "npm run deploy -- us"],
      versionsDeploy("us", [`${NEW}@0%`, `${OLD}@100%`], "npm run deploy: rollout 0%"),
      versionsDeploy("us", [`${NEW}@10%`, `${OLD}@90%`], "npm run deploy: rollout 10%"),
      versionsDeploy("us", [`${NEW}@50%`, `${OLD}@50%`], "npm run deploy: rollout 50%"),
      versionsDeploy("us", [`${NEW}@100%`], "npm run deploy: rollout 100%"),
      ["triggers", "deploy", "--env", "us"],
    ]);
    // One probe per step, pinned to the new version while the old one still serves, then one after the routes.
    expect(endpoint.seen.map((h) => h["cloudflare-workers-version-overrides"])).toEqual([
      `tollgate-us="${NEW}"`,
      `tollgate-us="${NEW}"`,
      `tollgate-us="${NEW}"`,
      undefined,
      undefined,
    ]);
    expect(endpoint.seen.every((h) => h.authorization === "Bearer probe-token-123")).toBe(true);
    expect(run.stdout).toContain(`deployed: ${NEW} serves 100% of tollgate-us (was ${OLD})`);
    expect(run.stdout).toContain("admin token set (ADMIN_TOKEN)");
  });

  it("takes the rollout steps given, and the EU environment's names", async () => {
    const config = await fork();
    const endpoint = await health(() => OK);
    const run = await runTool(["deploy", "eu", "--config", config, "--steps", "25,100", ...fast(endpoint.url)]);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.calls.slice(CHECK_CALLS("eu").length + 2)).toEqual([
      versionsDeploy("eu", [`${NEW}@25%`, `${OLD}@75%`], "npm run deploy: rollout 25%"),
      versionsDeploy("eu", [`${NEW}@100%`], "npm run deploy: rollout 100%"),
      ["triggers", "deploy", "--env", "eu"],
    ]);
    expect(endpoint.seen[0]!["cloudflare-workers-version-overrides"]).toBe(`tollgate-eu="${NEW}"`);
  });

  it("rolls back to the old version at 100% when the new one's probe fails, and exits 4", async () => {
    const config = await fork();
    // The new version is broken: any request pinned to it is unhealthy; the old one is fine.
    const endpoint = await health((h) =>
      h["cloudflare-workers-version-overrides"]?.includes(NEW)
        ? { status: 503, body: { status: "unavailable", detail: "IDENTITY_HMAC_SECRET is shorter than 32 bytes" } }
        : OK,
    );
    const run = await runTool(["deploy", "us", "--config", config, "--steps", "10,50,100", ...fast(endpoint.url)]);

    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.calls.slice(CHECK_CALLS("us").length)).toEqual([
      ["deployments", "status", "--env", "us", "--json"],
      ["versions", "upload", "--env", "us", "--message", "npm run deploy -- us"],
      versionsDeploy("us", [`${NEW}@10%`, `${OLD}@90%`], "npm run deploy: rollout 10%"),
      versionsDeploy(
        "us",
        [`${OLD}@100%`],
        expect.stringMatching(/^npm run deploy: rolled back \(unhealthy at 10%: 503 .*shorter than 32 bytes/) as unknown as string,
      ),
    ]);
    // Two tries pinned to the new version, then one unpinned after the rollback.
    expect(endpoint.seen.map((h) => h["cloudflare-workers-version-overrides"] ?? "unpinned")).toEqual([
      `tollgate-us="${NEW}"`,
      `tollgate-us="${NEW}"`,
      "unpinned",
    ]);
    expect(run.stdout).toContain(`rolled back: ${OLD} serves 100% again and is healthy`);
  });

  it("rolls back when a rollout step itself fails", async () => {
    const config = await fork();
    const endpoint = await health(() => OK);
    const scenario = {
      ...healthyScenario(),
      [`versions deploy ${NEW}@50%`]: {
        exit: 1,
        stderr: "✘ [ERROR] A request to the Cloudflare API failed.",
        output: { type: "command-failed", version: 1, message: "A request to the Cloudflare API failed." },
      },
    };
    const run = await runTool(["deploy", "us", "--config", config, "--steps", "10,50,100", ...fast(endpoint.url)], { scenario });
    expect(run.code, run.stdout + run.stderr).toBe(4);
    expect(run.calls.slice(-2)).toEqual([
      versionsDeploy("us", [`${NEW}@50%`, `${OLD}@50%`], "npm run deploy: rollout 50%"),
      versionsDeploy("us", [`${OLD}@100%`], "npm run deploy: rolled back (the 50% step failed: A request to the Cloudflare API failed.)"),
    ]);
  });

  it("exits 5 when even the rollback fails, naming the command to run", async () => {
    const config = await fork();
    const endpoint = await health((h) => (h["cloudflare-workers-version-overrides"] ? { status: 503, body: { status: "unavailable" } } : OK));
    const scenario = {
      ...healthyScenario(),
      [`versions deploy ${OLD}@100%`]: { exit: 1, output: { type: "command-failed", version: 1, message: "Authentication error" } },
    };
    const run = await runTool(["deploy", "us", "--config", config, ...fast(endpoint.url)], { scenario });
    expect(run.code).toBe(5);
    expect(run.stdout).toContain(
      `ROLLBACK FAILED: Authentication error. ${NEW} may still serve traffic: run npx wrangler versions deploy ${OLD}@100% --env us --yes`,
    );
  });

  it("stops before changing anything when a Durable Object migration is pending, and deploys it whole with --migrate", async () => {
    const config = await fork();
    const endpoint = await health(() => OK);
    const message =
      "This Worker has a pending Durable Object migration, which cannot be applied by `wrangler versions upload`. Durable Object migrations must be applied with `wrangler deploy`.";
    const scenario = {
      ...healthyScenario(),
      "versions upload": { exit: 1, stderr: `✘ [ERROR] ${message}`, output: { type: "command-failed", version: 1, message } },
      deploy: {
        stdout: `Uploaded tollgate-us (3.10 sec)\nCurrent Version ID: ${NEW}`,
        output: { type: "deploy", version: 1, worker_name: "tollgate-us", version_id: NEW, targets: [] },
      },
    };
    const refused = await runTool(["deploy", "us", "--config", config, ...fast(endpoint.url)], { scenario });
    expect(refused.code).toBe(3);
    expect(refused.calls.at(-1)).toEqual(["versions", "upload", "--env", "us", "--message", "npm run deploy -- us"]);
    expect(refused.stdout).toMatch(/Durable Object migration tollgate-us has not applied \(.*last tag v\d+\).*npm run deploy -- us --migrate/);
    expect(endpoint.seen).toHaveLength(0);

    const migrated = await runTool(["deploy", "us", "--config", config, "--migrate", ...fast(endpoint.url)], { scenario });
    expect(migrated.code, migrated.stdout + migrated.stderr).toBe(0);
    expect(migrated.calls).toEqual([...CHECK_CALLS("us"), ["deploy", "--env", "us", "--message", "npm run deploy -- us --migrate"]]);
    expect(endpoint.seen).toHaveLength(1);
    expect(migrated.stdout).toContain(`deployed: ${NEW} serves 100% of tollgate-us, migrations applied`);
  });

  it("refuses a region whose secret IDENTITY_HMAC_SECRET is missing, saying how to set it", async () => {
    const config = await fork();
    const scenario = { ...healthyScenario(), "secret list": { stdout: JSON.stringify([{ name: "ADMIN_TOKEN", type: "secret_text" }]) } };
    const run = await runTool(["deploy", "eu", "--config", config, "--probe-url", "http://127.0.0.1:9/"], { scenario });
    expect(run.code).toBe(3);
    expect(run.calls).toEqual(CHECK_CALLS("eu"));
    expect(run.stdout).toContain("tollgate-eu has no IDENTITY_HMAC_SECRET");
    expect(run.stdout).toContain("openssl rand -base64 48 | npx wrangler secret put IDENTITY_HMAC_SECRET --env eu");
  });

  it("refuses a traffic split it did not start", async () => {
    const config = await fork();
    const split = {
      stdout: JSON.stringify({
        id: "d",
        created_on: "2026-11-21T10:00:00.000Z",
        versions: [
          { version_id: NEW, percentage: 50 },
          { version_id: OLD, percentage: 50 },
        ],
      }),
    };
    const run = await runTool(["deploy", "us", "--config", config, "--probe-url", "http://127.0.0.1:9/"], {
      scenario: { ...healthyScenario(), "deployments status": split },
    });
    expect(run.code).toBe(3);
    expect(run.calls.at(-1)).toEqual(["deployments", "status", "--env", "us", "--json"]);
    expect(run.stdout).toContain(`traffic is split (${NEW}@50%, ${OLD}@50%)`);
  });

  it("refuses the repository's example hosts and origins, naming each setting and file, before running anything", async () => {
    const run = await runTool(["deploy", "us"]);
    expect(run.code).toBe(3);
    expect(run.calls).toEqual([]);
    expect(run.stdout).toContain('wrangler.toml [env.us.vars] HOSTED_API_ORIGIN: "https://hosted-api.origin.us.example.com" is an example origin');
    expect(run.stdout).toContain('wrangler.toml [env.us.vars] ADMIN_HOSTS: "tollgate-admin.us.example.com" is an example host');
    expect(run.stdout).toContain('wrangler.toml [env.us] routes: "*.agents.us.example.com/*" is an example host');
    expect(run.stdout).toContain("deploy refused, nothing was changed");
  });

  it.each([
    [
      "a host without a route",
      (t: string) => t.replace(/  \{ pattern = "control\.us\.tollgate-fork\.net", custom_domain = true \},\n/, ""),
      "no route for control.us.tollgate-fork.net (listed in UPSTREAM_HOSTS)",
    ],
    [
      "an origin over http",
      (t: string) => t.replace('"https://hosted-api.origin.us.', '"http://hosted-api.origin.us.'),
      'HOSTED_API_ORIGIN: "http://hosted-api.origin.us.tollgate-fork.net" is not https',
    ],
    [
      "an emulator as an origin",
      (t: string) => t.replace('AGENT_SERVER_ORIGIN = "https://agent-server.origin.us.tollgate-fork.net"', 'AGENT_SERVER_ORIGIN = "service"'),
      'AGENT_SERVER_ORIGIN: is "service"',
    ],
    [
      "an admin host that is also an upstream host",
      (t: string) => t.replace('ADMIN_HOSTS = "tollgate-admin.us.tollgate-fork.net"', 'ADMIN_HOSTS = "api.us.tollgate-fork.net"'),
      "is also an upstream host in UPSTREAM_HOSTS",
    ],
  ])("refuses %s", async (_, edit, finding) => {
    const run = await runTool(["deploy", "us", "--config", await fork(edit)]);
    expect(run.code).toBe(3);
    expect(run.calls).toEqual([]);
    expect(run.stdout).toContain(finding);
  });

  it("refuses a failing rule table, naming the file, row and field", async () => {
    const config = await fork();
    const rules = join(config, "../rules/control-plane.json");
    const { readFileSync, writeFileSync } = await import("node:fs");
    const table = JSON.parse(readFileSync(rules, "utf8"));
    table.rules[0].limits.us.count = 0;
    writeFileSync(rules, JSON.stringify(table));
    const run = await runTool(["deploy", "us", "--config", config]);
    expect(run.code).toBe(3);
    expect(run.calls).toEqual([]);
    expect(run.stdout).toMatch(/rules\/control-plane\.json: row \d+ .*limits\.us\.count/);
  });

  it("refuses a bad region or option with exit 2 and one line", async () => {
    const region = await spawnTool(["deploy", "mars"]);
    expect(region.code).toBe(2);
    expect(region.stderr.trim()).toBe(
      'deploy: region: "mars" is not one of us, eu (each is an environment of wrangler.toml) (npm run deploy -- --help lists every option)',
    );
    const steps = await spawnTool(["deploy", "us", "--steps", "50,10,100"]);
    expect(steps.code).toBe(2);
    expect(steps.stderr).toContain('--steps: "50,10,100" must ascend');
    expect([region.calls, steps.calls]).toEqual([[], []]);
  });
});
