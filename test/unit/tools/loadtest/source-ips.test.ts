// Against a deployed gateway the client IP is the socket's: --source-ips gives each client of an
// IP-keyed row an address of its own (undici's localAddress), so each has a counter of its own, and
// the run says which rows one address can judge and why. The runner is checked against a stand-in
// that answers as the gateway would for row 29 and records the address each request came from
// (every 127.0.0.0/8 address is this machine's loopback on Linux).
import { once } from "node:events";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { hostedApiClassifier } from "../../../../src/core/rules/hosted-api.ts";
import { DEFAULTS } from "../../../../tools/loadtest/args.ts";
import { runNotes, targetNotes } from "../../../../tools/loadtest/loadtest.ts";
import { planRun, type PlanOptions } from "../../../../tools/loadtest/plan.ts";
import { executePlan } from "../../../../tools/loadtest/runner.ts";
import { publishedRow } from "../../../support/rows.ts";

const SOURCES = ["127.0.0.2", "127.0.0.3", "127.0.0.4"];

const options = (sourceIps: readonly string[]): PlanOptions => ({
  ...DEFAULTS,
  region: "us",
  timeScale: 1,
  windows: 1,
  minPhaseS: 0,
  budget: 400,
  burstCap: 20,
  varyIp: false,
  runId: "t",
  sourceIps,
});

describe("--source-ips", () => {
  it("gives each client of an IP-keyed row its own address and counter with three or more", () => {
    const [shared] = planRun([publishedRow(29)], options([]), hostedApiClassifier).rules;
    expect(shared!.sharedIdentity).toBe(true);
    const [own] = planRun([publishedRow(29)], options(SOURCES), hostedApiClassifier).rules;
    expect(own!.sharedIdentity).toBe(false);
    expect(Object.values(own!.identities).map((i) => [i.key, i.localAddress])).toEqual(SOURCES.map((ip) => [`ip:${ip}`, ip]));
    // Two addresses are not enough for three clients: one counter, from the first address.
    const [two] = planRun([publishedRow(29)], options(SOURCES.slice(0, 2)), hostedApiClassifier).rules;
    expect(two!.sharedIdentity).toBe(true);
    expect(new Set(Object.values(two!.identities).map((i) => i.localAddress))).toEqual(new Set(["127.0.0.2"]));
  });

  it("sends each client's requests from its own address", { timeout: 60_000 }, async () => {
    const row = publishedRow(29);
    const { count, interval } = row.limits.us;
    const seen = new Set<string>();
    const server = createServer((req, res) => {
      seen.add((req.socket.remoteAddress ?? "").replace(/^::ffff:/, ""));
      // Admitted, as the gateway answers a request it counted (the stand-in never refuses).
      res.writeHead(200, { "ratelimit-policy": `"${row.name}";q=${count};w=${interval}`, ratelimit: `"${row.name}";r=${count - 1};t=${interval}` });
      res.end("{}");
    });
    // Any free port: two runs of the suite side by side (or npm start's 18110-18111) never clash.
    server.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const plan = planRun([row], { ...options(SOURCES), load: 1.3, ruleRateCap: 20 }, hostedApiClassifier);
      // Only the steady client and one burst at once: the retry client would wait a whole minute for a refusal that never comes.
      const quick = {
        ...plan,
        rules: plan.rules.map((r) => ({
          ...r,
          retry: { kind: "skip" as const, reason: "not in this test" },
          bursts: { ...r.bursts, offsetsMs: [0] },
          durationMs: 2000,
          steady: { ...r.steady, durationMs: 2000 },
        })),
        durationMs: 2000,
      };
      const execution = executePlan({ baseUrlOf: () => new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}`), plan: quick, pipelining: 1 });
      const answers = (await execution.done).get("us:29")!;
      expect(answers.length).toBeGreaterThan(0);
      expect(answers.every((a) => a.error === undefined)).toBe(true);
      // The steady client from the first address, the bursts from the second; nothing from elsewhere.
      expect([...seen].sort()).toEqual(["127.0.0.2", "127.0.0.3"]);
      expect(new Set(answers.map((a) => a.identity))).toEqual(new Set(["ip:127.0.0.2", "ip:127.0.0.3"]));
    } finally {
      server.close();
    }
  });
});

describe("against --target", () => {
  it("says which rows one client address can judge, and why", () => {
    const rows = [12, 3, 29].map(publishedRow);
    const one = targetNotes(planRun(rows, options([]), hostedApiClassifier), []).join("\n");
    expect(one).toMatch(/takes the client IP from the socket .* It sends from one address\./);
    expect(one).toMatch(/API-key rows are judged from any one address/);
    expect(one).toMatch(/User-at-IP rows \(3\) are judged from one address/);
    expect(one).toMatch(/IP rows \(29\) share one counter per address: .* run one after another on it/);
    const three = targetNotes(planRun(rows, options(SOURCES), hostedApiClassifier), SOURCES).join("\n");
    expect(three).toMatch(/IP rows \(29\): each client sends from an address of its own \(127\.0\.0\.2, 127\.0\.0\.3, 127\.0\.0\.4\)/);
    const plan = planRun([publishedRow(14)], options([]), hostedApiClassifier);
    expect(runNotes({ target: new URL("https://gw.example.com"), timeScale: 1 }, plan).join("\n")).toMatch(/Rows 14 run in real time here/);
  });
});
