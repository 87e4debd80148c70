// The 2026 description's other operations (issue 31, item 3) through the gateway, as the official
// client at its `latest` tag (1.15) calls them: threads.prune, threads.get with include ["ttl"],
// crons.update with the 2026 fields, and the docs page with the description it reads. Every
// answer is held to the 2026 document (../agent-server/support.ts).
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { AGENT_SERVER_URL, agentServer, freshCaller } from "../agent-server/support.ts";
import { officialClientV1 } from "./official-client-v1-support.ts";

describe("the 2026 operations through the gateway, with the 1.15 client", () => {
  it("threads.prune, threads.get with include ttl, and the thread's storage", async () => {
    const { client } = officialClientV1();
    const gone = await client.threads.create();
    // The client types only the "delete" strategy; the 2026 document adds "keep_latest".
    const kept = (await agentServer("POST", "/threads", { body: { ttl: { strategy: "keep_latest", ttl: 60 } } })).body;
    expect(await client.threads.prune([gone.thread_id, crypto.randomUUID()])).toEqual({ pruned_count: 1 });
    expect((await agentServer("GET", `/threads/${gone.thread_id}`)).status).toBe(404);
    const withTtl = await client.threads.get(kept.thread_id, { include: ["ttl"] });
    expect(withTtl).toMatchObject({ thread_id: kept.thread_id, ttl: { strategy: "keep_latest", ttl_minutes: 60 } });
    const storage = await agentServer("GET", `/threads/${kept.thread_id}/storage`);
    expect(storage).toMatchObject({ status: 200, body: { thread_id: kept.thread_id, total_bytes: 0 } });
  });

  it("crons.update with the 2026 fields; a wrong one is the server's 422", async () => {
    const { client } = officialClientV1();
    const thread = await client.threads.create();
    const cron = await client.crons.createForThread(thread.thread_id, "agent", { schedule: "0 9 1 1 *" });
    const updated = await client.crons.update(cron.cron_id, {
      timezone: "Europe/Paris",
      streamMode: ["updates"],
      durability: "sync",
      endTime: "2100-01-01T00:00:00Z",
    });
    expect(updated).toMatchObject({
      cron_id: cron.cron_id,
      timezone: "Europe/Paris",
      end_time: "2100-01-01T00:00:00.000+00:00",
      payload: { stream_mode: ["updates"], durability: "sync" },
    });
    // 09:00 in Paris on 1 January is 08:00 UTC.
    expect(new Date(updated.next_run_date!).getUTCHours()).toBe(8);
    await expect(client.crons.update(cron.cron_id, { durability: "forever" as "sync" })).rejects.toThrow(/422/);
    expect((await agentServer("GET", `/runs/crons/${cron.cron_id}`)).body).toEqual(updated);
  });

  it("GET /docs and the openapi.json it reads, under the gateway's /agent-server prefix", async () => {
    const page = await exports.default.fetch(`${AGENT_SERVER_URL}/docs`, { headers: freshCaller() });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("url: 'openapi.json'");
    // The page's relative URL resolves below the prefix, where the gateway forwards it.
    const described = await exports.default.fetch(new URL("openapi.json", `${AGENT_SERVER_URL}/docs`), { headers: freshCaller() });
    expect(described.status).toBe(200);
    expect(Object.keys(((await described.json()) as { paths: object }).paths)).toContain("/threads/{thread_id}/storage");
  });
});
