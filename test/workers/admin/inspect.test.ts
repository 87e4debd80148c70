// Read without spending: a counter inspection answers what an identity has left on a rule and
// when its window frees room, and leaves the counter exactly as it was.
import { afterEach, describe, expect, it } from "vitest";
import { evictDurableObject } from "cloudflare:test";
import { freshIdentity } from "../support/requests.ts";
import { admin, adminGateway, driveOverridesClock, freezeCounter, keyed, region, resetAdminState, storedState } from "./support.ts";

const T = 1_900_000_000_000;
afterEach(() => resetAdminState());

interface Inspected {
  counter: string;
  verdict: string;
  limit: { count: number; interval: number };
  limitFrom: string;
  admissions: number;
  remaining: number;
  freesInSeconds: number;
  retryAfterSeconds: number;
  admissionAgesMs: number[];
  source: string;
}

describe("POST /_tollgate/counters/inspect", () => {
  it("reports remaining, the admissions in the window and when it frees room, and never changes the counter", async () => {
    driveOverridesClock(T);
    const send = adminGateway();
    const K = freshIdentity().apiKey;
    const { address, stub } = await freezeCounter(12, { kind: "api-key", apiKey: K }, T);
    for (let i = 0; i < 5; i++) expect((await send("/runs/query", { method: "POST", headers: keyed(K) })).status).toBe(200);

    const before = await storedState(stub);
    const inspect = async () => (await (await admin(send, "POST", "/counters/inspect", { body: { rule: 12, apiKey: K } })).json()) as Inspected;
    const first = await inspect();
    expect(first).toMatchObject({
      counter: address.name,
      treatment: "counted",
      limit: { count: 15, interval: 10 },
      limitFrom: "published",
      admissions: 5,
      remaining: 10,
      freesInSeconds: 10,
      retryAfterSeconds: 0,
      admissionAgesMs: [0, 0, 0, 0, 0],
    });
    for (let i = 0; i < 20; i++) expect(await inspect()).toEqual(first);
    expect(await storedState(stub)).toEqual(before);

    // The 20 inspections spent nothing: exactly 10 more requests are admitted.
    const statuses = [];
    for (let i = 0; i < 11; i++) statuses.push((await send("/runs/query", { method: "POST", headers: keyed(K) })).status);
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(await inspect()).toMatchObject({ admissions: 15, remaining: 0, retryAfterSeconds: 10 });
  });

  it("reads an evicted counter from storage without loading, writing or arming anything", async () => {
    driveOverridesClock(T);
    const send = adminGateway();
    const K = freshIdentity().apiKey;
    const { stub } = await freezeCounter(12, { kind: "api-key", apiKey: K }, T);
    for (let i = 0; i < 3; i++) await send("/runs/query", { method: "POST", headers: keyed(K) });
    await evictDurableObject(stub);
    await freezeCounter(12, { kind: "api-key", apiKey: K }, T + 4_000);
    const before = await storedState(stub);
    const res = (await (await admin(send, "POST", "/counters/inspect", { body: { rule: 12, apiKey: K } })).json()) as Inspected;
    expect(res).toMatchObject({ admissions: 3, remaining: 12, source: "storage" });
    expect(await storedState(stub)).toEqual(before);
  });

  it("inspects by digest (as a counter name shows it), and under the limit an override gives", async () => {
    driveOverridesClock(T);
    const send = adminGateway();
    const K = freshIdentity().apiKey;
    const { address } = await freezeCounter(12, { kind: "api-key", apiKey: K }, T);
    const created = await admin(send, "POST", "/overrides", {
      body: { identity: { kind: "api-key", value: K }, rule: 12, action: "limit", limits: { [region]: { count: 40, interval: 10 } }, reason: "trial" },
    });
    const { override } = (await created.json()) as { override: { id: string } };
    const digest = address.name.split(":")[2];
    const res = (await (await admin(send, "POST", "/counters/inspect", { body: { rule: 12, digest } })).json()) as Inspected;
    expect(res).toMatchObject({
      counter: address.name,
      limit: { count: 40, interval: 10 },
      limitFrom: override.id,
      admissions: 0,
      remaining: 40,
      freesInSeconds: 0,
    });
  });

  it("shows the counter requests are counted on: under an address's limit, the address's, not the user's", async () => {
    driveOverridesClock(T);
    const send = adminGateway();
    const { userId, ip } = freshIdentity();
    // Rule 3 counts per user and IP; an address's limit counts the whole address on one counter (src/core/overrides/scope.ts).
    const { address } = await freezeCounter(3, { kind: "ip", ip }, T);
    const created = await admin(send, "POST", "/overrides", {
      body: { identity: { kind: "ip", value: ip }, rule: 3, action: "limit", limits: { [region]: { count: 5, interval: 10 } }, reason: "abuse" },
    });
    expect(created.status).toBe(201);
    for (let i = 0; i < 2; i++)
      expect((await send("/auth/token", { method: "POST", headers: { "x-user-id": userId, "cf-connecting-ip": ip } })).status).not.toBe(429);
    const res = (await (await admin(send, "POST", "/counters/inspect", { body: { rule: 3, userId, ip } })).json()) as Inspected;
    expect(res).toMatchObject({ counter: address.name, limit: { count: 5, interval: 10 }, admissions: 2, remaining: 3 });
  });

  it("says which identity a rule needs, naming the field", async () => {
    const send = adminGateway();
    const res = await admin(send, "POST", "/counters/inspect", { body: { rule: 12, ip: "198.51.100.1" } });
    expect(res.status).toBe(422);
    expect(((await res.json()) as { detail: { loc: string[] }[] }).detail[0]!.loc).toEqual(["body", "apiKey"]);
  });
});
