// A read-only token (ADMIN_READ_TOKENS, docs/admin.md "Tokens and roles"): it may GET, metrics
// scraping first, and is refused 403 on anything else, changing nothing; operators are unaffected
// and the audit log names whoever made a change.
import { afterEach, describe, expect, it } from "vitest";
import { admin, adminGateway, resetAdminState, TOKEN } from "./support.ts";

afterEach(() => resetAdminState());

const READER = "prometheus-scrape-token-0123456789";
const reader = () => adminGateway({ ADMIN_TOKENS: `oncall=${"o".repeat(24)}`, ADMIN_READ_TOKENS: `prometheus=${READER}` });

describe("a read-only token", () => {
  it("reads: metrics, rules, overrides, the audit log and the dashboard", async () => {
    const send = reader();
    const metrics = await admin(send, "GET", "/metrics", { token: READER });
    expect(metrics.status).toBe(200);
    expect(await metrics.text()).toContain("tollgate_");
    for (const path of ["/rules", "/overrides", "/audit", "/dashboard", "/dashboard/data"]) {
      const res = await admin(send, "GET", path, { token: READER });
      expect(res.status, path).toBe(200);
      await res.body?.cancel();
    }
    expect((await admin(send, "HEAD", "/metrics", { token: READER })).status).toBe(200);
  });

  it.each([
    ["POST", "/overrides", { rule: 12, mode: "shadow", reason: "scraper" }],
    ["DELETE", "/overrides/ovr-1", undefined],
    ["POST", "/explain", { method: "GET", path: "/runs/stats", headers: [], ip: "203.0.113.7" }],
    ["POST", "/counters/inspect", { rule: 12, apiKey: "k" }],
    ["PUT", "/overrides", {}],
    ["PATCH", "/rules", {}],
  ] as const)("is refused %s %s with 403, and nothing changes", async (method, path, body) => {
    const send = reader();
    const res = await admin(send, method, path, { token: READER, ...(body !== undefined && { body }) });
    expect(res.status).toBe(403);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toMatchObject({ status: 403, detail: expect.stringContaining('"prometheus" is read-only') });
    expect(await (await admin(send, "GET", "/overrides")).json()).toMatchObject({ overrides: [] });
    expect(await (await admin(send, "GET", "/audit")).json()).toMatchObject({ entries: [] });
  });

  it("leaves operators their changes, each audited under its token's name", async () => {
    const send = reader();
    const set = await admin(send, "POST", "/overrides", { token: "o".repeat(24), body: { rule: 12, mode: "shadow", reason: "on call" } });
    expect(set.status).toBe(201);
    expect((await admin(send, "POST", "/overrides", { token: TOKEN, body: { rule: 13, mode: "shadow", reason: "admin" } })).status).toBe(201);
    const audit = (await (await admin(send, "GET", "/audit", { token: READER })).json()) as { entries: { actor: string }[] };
    expect(audit.entries.map((e) => e.actor).sort()).toEqual(["admin", "oncall"]);
  });
});
