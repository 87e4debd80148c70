// Every credential header the control plane takes against the identity the gateway counts (issue
// 32, finding 3, widened): for each way a request may name a workspace, either the emulator refuses
// it, or the gateway counts it on one counter that the client cannot swap for a fresh one by
// changing a header the emulator ignores. Before: X-Tenant-Id opened a workspace on its own and won
// over X-Api-Key, so a fixed X-Tenant-Id with a new x-api-key each time (a fresh gateway counter
// each) reached one workspace without limit.
import { describe, expect, it } from "vitest";
import { CONTROL_PLANE_URL, controlPlaneFetch } from "../control-plane/support.ts";
import { randomClientIp } from "../../support/callers.ts";

const get = (headers: Record<string, string>) => controlPlaneFetch(`${CONTROL_PLANE_URL}/v2/listeners`, { headers });

/** The row and the units left the gateway reported, from `RateLimit: "<row>";r=<n>;t=<s>`. */
function counted(res: Response) {
  const match = /^"([^"]+)";r=(\d+)/.exec(res.headers.get("ratelimit") ?? "");
  return { row: match?.[1], remaining: match ? Number(match[2]) : undefined };
}

interface Case {
  readonly name: string;
  /** The headers of the i-th request, from one client address. */
  readonly headers: (i: number, ip: string) => Record<string, string>;
  /** The emulator's answer to each. */
  readonly status: number;
  /** The gateway row counting them: for admitted requests one counter, whatever else changed between requests. */
  readonly row: string;
}

const claimant = `claimant-${crypto.randomUUID()}`;
const workspace = crypto.randomUUID();

const CASES: readonly Case[] = [
  { name: "X-Api-Key", headers: (_i, ip) => ({ "cf-connecting-ip": ip, "x-api-key": claimant }), status: 200, row: "control-plane-default-key" },
  {
    name: "X-Api-Key with X-Tenant-Id of a workspace it chose",
    headers: (_i, ip) => ({ "cf-connecting-ip": ip, "x-api-key": claimant, "x-tenant-id": workspace }),
    status: 200,
    row: "control-plane-default-key",
  },
  // A new token each time is a new workspace each time (its own): the address is what is counted.
  {
    name: "Authorization: Bearer, a new token each time",
    headers: (i, ip) => ({ "cf-connecting-ip": ip, authorization: `Bearer token-${i}-${crypto.randomUUID()}` }),
    status: 200,
    row: "control-plane-public-ip",
  },
  { name: "X-Tenant-Id alone", headers: (_i, ip) => ({ "cf-connecting-ip": ip, "x-tenant-id": workspace }), status: 401, row: "control-plane-public-ip" },
  {
    name: "X-Tenant-Id with a new X-Api-Key each time",
    headers: (i, ip) => ({ "cf-connecting-ip": ip, "x-tenant-id": workspace, "x-api-key": `fresh-${i}-${crypto.randomUUID()}` }),
    status: 403,
    row: "control-plane-default-key",
  },
  {
    name: "X-Tenant-Id with a new bearer token each time",
    headers: (i, ip) => ({ "cf-connecting-ip": ip, "x-tenant-id": workspace, authorization: `Bearer fresh-${i}-${crypto.randomUUID()}` }),
    status: 403,
    row: "control-plane-public-ip",
  },
  {
    name: "x-user-id alone (not a credential of the control plane)",
    headers: (i, ip) => ({ "cf-connecting-ip": ip, "x-user-id": `user-${i}` }),
    status: 401,
    row: "control-plane-public-ip",
  },
];

describe("each control-plane credential against the identity the gateway counts", () => {
  it.each(CASES)("$name: $status on $row", async ({ headers, status, row }) => {
    // The claimant key chooses the workspace first (as its first user would), so it has a key.
    expect((await get({ "cf-connecting-ip": randomClientIp(), "x-api-key": claimant, "x-tenant-id": workspace })).status).toBe(200);
    const ip = randomClientIp();
    const answers = [];
    for (let i = 0; i < 4; i++) {
      const res = await get(headers(i, ip));
      answers.push({ status: res.status, ...counted(res), detail: ((await res.json()) as { detail?: unknown }).detail });
    }
    expect(answers.map((a) => a.status)).toEqual([status, status, status, status]);
    expect(answers.map((a) => a.row)).toEqual([row, row, row, row]);
    if (status !== 200) {
      // Refused by the emulator: a fresh counter per new key here reaches nothing.
      for (const a of answers) expect(typeof a.detail).toBe("string");
      return;
    }
    // Admitted: one counter, each answer one unit fewer left than the one before (no fresh window).
    const left = answers.map((a) => a.remaining!);
    for (let i = 1; i < left.length; i++) expect(left[i]).toBe(left[i - 1]! - 1);
  });
});
