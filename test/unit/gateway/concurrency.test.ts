// The isolate's side of concurrency (src/gateway/concurrency.ts) against an in-memory slots object:
// shadow rows, what a refusal logs (never a raw identity), and a take whose answer never came.
import { afterEach, describe, expect, it, vi } from "vitest";
import { SlotBook } from "../../../src/core/limiter/slots.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import { ruleTables } from "../../../src/core/rules/tables.ts";
import { Concurrency, holdSlot, type ConcurrencyOptions, type SlotsStub } from "../../../src/gateway/concurrency.ts";
import { GatewayError } from "../../../src/http/gateway-error.ts";
import agentServer from "../../../rules/agent-server.json" with { type: "json" };

const UUID = "67e55044-10b1-426f-9247-bb680e5fe0c8";
const PATH = `/threads/${UUID}/stream/events`;
const DIGEST = "d1".repeat(32);

/** An in-memory slots object per name on the test's clock; `hang` leaves takes unanswered. */
function memorySlots(time: { now: number }) {
  const books = new Map<string, SlotBook>();
  const released: string[] = [];
  let hang = false;
  const book = (name: string) => books.get(name) ?? (books.set(name, new SlotBook()), books.get(name)!);
  const slots = (name: string): SlotsStub => ({
    take: async ({ slot, limit, leaseMs }) => {
      if (hang) return new Promise(() => {});
      const { lapsed: _, ...answer } = book(name).take(slot, time.now, limit, leaseMs);
      return answer;
    },
    renew: async ({ slot, leaseMs }) => book(name).renew(slot, time.now, leaseMs),
    release: async ({ slot }) => (released.push(slot), book(name).release(slot)),
  });
  return { slots, released, books, hang: () => (hang = true) };
}

function concurrency(options: Partial<ConcurrencyOptions> = {}) {
  const time = { now: 1_900_000_000_000 };
  const memory = memorySlots(time);
  const runtime = {
    concurrency: new Concurrency({
      region: "us",
      failMode: "open",
      timeoutMs: 5,
      leaseMs: 30_000,
      identitiesInTelemetry: true,
      clock: { now: () => time.now, sleep: () => new Promise(() => {}) },
      caller: "isolate-a",
      slots: memory.slots,
      ...options,
    }),
  };
  return { runtime, memory, time };
}

const request = (kind: "api-key" | "user-ip" | "ip" = "ip") => ({
  upstream: "agent-server" as const,
  method: "GET",
  path: PATH,
  identity: { kind },
  digest: DIGEST,
});
const ipRule = ruleTables["agent-server"].concurrency.find((rule) => rule.identity === "ip")!;

afterEach(() => vi.restoreAllMocks());

describe("Concurrency", () => {
  it("a refusal is logged as a denial with the counter's hashed name, never the identity; in the EU without the name", async () => {
    const logged: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void logged.push(line));
    for (const identitiesInTelemetry of [true, false]) {
      const { runtime } = concurrency({ identitiesInTelemetry });
      for (let i = 0; i < ipRule.limits.us.count; i++) await holdSlot(runtime, request(), undefined);
      await expect(holdSlot(runtime, request(), undefined)).rejects.toBeInstanceOf(GatewayError);
    }
    const lines = logged.map((line) => JSON.parse(line));
    expect(lines).toEqual([
      {
        event: "denied",
        region: "us",
        rule: ipRule.id,
        counter: `us:${ipRule.id}:${DIGEST}`,
        decidedBy: "object",
        remaining: 0,
        retryAfter: 30,
        limit: `${ipRule.limits.us.count} concurrent`,
      },
      { event: "denied", region: "us", rule: ipRule.id, decidedBy: "object", remaining: 0, retryAfter: 30, limit: `${ipRule.limits.us.count} concurrent` },
    ]);
  });

  it("a shadow row takes slots and, once all are held, logs shadow_denied and lets the request on without a hold", async () => {
    const file = structuredClone(agentServer) as { concurrency: { mode: string }[] };
    for (const row of file.concurrency) row.mode = "shadow";
    const table = loadRuleTable(file, "rules/agent-server.json");
    const logged: string[] = [];
    vi.spyOn(console, "log").mockImplementation((line: string) => void logged.push(line));
    const { runtime } = concurrency({ tables: { ...ruleTables, "agent-server": table } });
    const count = table.concurrency.find((rule) => rule.identity === "ip")!.limits.us.count;
    for (let i = 0; i < count; i++) expect(await holdSlot(runtime, request(), undefined)).toBeDefined();
    expect(await holdSlot(runtime, request(), undefined)).toBeUndefined();
    expect(JSON.parse(logged[0]!)).toMatchObject({ event: "shadow_denied" });
  });

  it("a take whose answer never came is given back by its slot id in the background, then decided by the fail mode", async () => {
    vi.spyOn(console, "log").mockImplementation(() => undefined);
    const { runtime, memory } = concurrency();
    memory.hang();
    const background: Promise<unknown>[] = [];
    const hold = await holdSlot(runtime, request(), (work) => void background.push(work));
    expect(hold?.decidedBy).toBe("local-fallback");
    // The first piece of background work is the give-back; the second, the renewals, runs on.
    await background[0];
    expect(memory.released).toEqual(["isolate-a:1"]);
    const closed = concurrency({ failMode: "closed" });
    closed.memory.hang();
    await expect(holdSlot(closed.runtime, request(), undefined)).rejects.toMatchObject({ kind: "limiter-unavailable" });
  });

  it("headers: the concurrent-requests policy and the slots left", async () => {
    const { runtime } = concurrency();
    const key = ruleTables["agent-server"].concurrency.find((rule) => rule.identity === "api-key")!;
    const hold = (await holdSlot(runtime, request("api-key"), undefined))!;
    expect(hold.policy).toBe(`"${key.name}";q=${key.limits.us.count};qu="concurrent-requests"`);
    expect(hold.rateLimit).toBe(`"${key.name}";r=${key.limits.us.count - 1}`);
  });
});
