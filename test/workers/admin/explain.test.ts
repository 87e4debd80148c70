// POST /_tollgate/explain answers what `npm run explain` prints (both are explain-report.ts), for
// this gateway's region and secret, then what the overrides in force make of the request.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, it } from "vitest";
import { explainReport } from "../../../src/gateway/explain-report.ts";
import { ruleTables } from "../../../src/core/rules/tables.ts";
import { admin, adminGateway, region, resetAdminState } from "./support.ts";

afterEach(() => resetAdminState());

const question = { method: "POST", path: "/api/v1/runs/query", headers: [["x-api-key", "k-explained"]] as [string, string][], ip: "203.0.113.7" };

async function cli(q = question) {
  const answer = await explainReport({ ...q, headers: new Headers(q.headers), region, secret: env.IDENTITY_HMAC_SECRET, tables: ruleTables });
  if (!answer.ok) throw new Error(answer.detail);
  return answer;
}

describe("POST /_tollgate/explain", () => {
  it("answers the command's own text and JSON, then the overrides in force", async () => {
    const send = adminGateway();
    const expected = await cli();
    const res = await admin(send, "POST", "/explain", { body: question });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { text: string; explanation: unknown; effective: { verdict: string; limitFrom: string } };
    expect(body.text).toBe(expected.text);
    expect(body.explanation).toEqual(expected.json);
    expect(body.text).toContain('rule met:   row 12 "runs-query-key"');
    expect(body.effective).toMatchObject({ treatment: "counted", limitFrom: "published" });

    await admin(send, "POST", "/overrides", { body: { rule: 12, mode: "shadow", reason: "explained" } });
    const text = await (await admin(send, "POST", "/explain", { body: question, headers: { accept: "text/plain" } })).text();
    expect(text.startsWith(`${expected.text}\n\nnow:        shadow (override `)).toBe(true);
  });

  it("refuses what the gateway would refuse, with the gateway's reason", async () => {
    const res = await admin(adminGateway(), "POST", "/explain", {
      body: {
        ...question,
        headers: [
          ["x-api-key", "a"],
          ["x-api-key", "b"],
        ],
      },
    });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: string }).detail).toMatch(/refuse this request with 400: Header x-api-key must be sent once/);
  });
});
