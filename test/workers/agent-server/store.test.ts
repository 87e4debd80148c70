// The store: /store/items (put, get, delete), /store/items/search, /store/namespaces, with TTLs.
import { describe, expect, it } from "vitest";
import { advanceClock, MINUTE_MS } from "./clock.ts";
import { agentServer, send, TIMESTAMP } from "./support.ts";

/** A namespace root unique to one test, so listings and searches see only that test's items. */
const root = () => `t-${crypto.randomUUID()}`;
const put = (namespace: string[], key: string, value: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  agentServer("PUT", "/store/items", { body: { namespace, key, value, ...extra } });
const get = (namespace: string[], key: string, query = "") =>
  agentServer("GET", `/store/items?namespace=${encodeURIComponent(namespace.join("."))}&key=${encodeURIComponent(key)}${query}`);

describe("PUT, GET and DELETE /store/items", () => {
  it("stores an item (204, no body), answers it, replaces it keeping created_at, deletes it (204)", async () => {
    const ns = [root(), "docs"];
    const created = await send("PUT", "/store/items", { body: { namespace: ns, key: "k1", value: { title: "one" } } });
    expect(created.status).toBe(204);
    expect(await created.text()).toBe("");

    const first = await get(ns, "k1");
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      namespace: ns,
      key: "k1",
      value: { title: "one" },
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: first.body.created_at,
    });

    await advanceClock(1000);
    expect((await put(ns, "k1", { title: "two" })).status).toBe(204);
    const second = await get(ns, "k1");
    expect(second.body).toMatchObject({ value: { title: "two" }, created_at: first.body.created_at });
    expect(second.body.updated_at > first.body.updated_at).toBe(true);

    const deleted = await send("DELETE", "/store/items", { body: { namespace: ns, key: "k1" } });
    expect(deleted.status).toBe(204);
    expect(await get(ns, "k1")).toMatchObject({ status: 200, body: null });
    expect((await agentServer("DELETE", "/store/items", { body: { namespace: ns, key: "never-there" } })).status).toBe(204);
  });

  it("answers null for a missing item; reads the namespace joined with '.' or one parameter per label", async () => {
    const ns = [root(), "a", "b"];
    expect((await get(ns, "missing")).body).toBeNull();
    await put(ns, "k", { v: 1 });
    const perLabel = await agentServer("GET", `/store/items?${ns.map((l) => `namespace=${l}`).join("&")}&key=k`);
    expect(perLabel.body).toMatchObject({ namespace: ns, key: "k", value: { v: 1 } });
  });

  it("answers 422 for a namespace that is empty, holds an empty label or a period, or starts with 'langgraph', and for a value that is not an object", async () => {
    const cases: [unknown, string][] = [
      [[], "body.namespace"],
      [["a", ""], "body.namespace.1"],
      [["a.b"], "body.namespace.0"],
      [["langgraph", "x"], "body.namespace.0"],
    ];
    for (const [namespace, loc] of cases) {
      const res = await agentServer("PUT", "/store/items", { body: { namespace, key: "k", value: {} } });
      expect(res.status, JSON.stringify(namespace)).toBe(422);
      expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([["value_error", loc]]);
    }
    const notObject = await agentServer("PUT", "/store/items", { body: { namespace: ["a"], key: "k", value: [1], ttl: "soon" } });
    expect(notObject.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["dict_type", "body.value"],
      ["float_type", "body.ttl"],
    ]);
    const missing = await agentServer("PUT", "/store/items", { body: {} });
    expect(missing.body.detail.map((e: any) => e.loc.join("."))).toEqual(["body.namespace", "body.key", "body.value"]);
  });

  it("answers 400 for a GET without a key; without a namespace (optional in the document) the empty one, which holds nothing", async () => {
    expect(await agentServer("GET", "/store/items?namespace=a")).toMatchObject({ status: 400, body: { detail: "Key is required" } });
    expect(await agentServer("GET", "/store/items?key=k")).toMatchObject({ status: 200, body: null });
    expect((await agentServer("GET", "/store/items?namespace=a..b&key=k")).body.detail[0]).toMatchObject({
      type: "value_error",
      loc: ["query", "namespace", 1],
    });
  });
});

describe("store TTL", () => {
  it("expires an item ttl minutes after it was last written or read; a read restarts the TTL unless refresh_ttl is false", async () => {
    const ns = [root()];
    await put(ns, "short", { v: 1 }, { ttl: 2 });
    await put(ns, "forever", { v: 2 });

    await advanceClock(1.5 * MINUTE_MS);
    expect((await get(ns, "short", "&refresh_ttl=false")).body).toMatchObject({ key: "short" });
    await advanceClock(1 * MINUTE_MS);
    // 2.5 minutes since the write, and the read did not refresh it: gone, from every operation.
    expect((await get(ns, "short")).body).toBeNull();
    expect((await agentServer("POST", "/store/items/search", { body: { namespace_prefix: ns } })).body.items.map((i: any) => i.key)).toEqual(["forever"]);

    await put(ns, "read", { v: 3 }, { ttl: 2 });
    await advanceClock(1.5 * MINUTE_MS);
    expect((await get(ns, "read")).body).toMatchObject({ key: "read" }); // restarts the 2 minutes
    await advanceClock(1.5 * MINUTE_MS);
    expect((await get(ns, "read", "&refresh_ttl=False")).body).toMatchObject({ key: "read" });
    await advanceClock(1 * MINUTE_MS);
    expect((await get(ns, "read")).body).toBeNull();
    expect((await get(ns, "forever")).body).toMatchObject({ value: { v: 2 } });
  });

  it("restarts the TTL of the items a search finds, unless refresh_ttl is false; a put without ttl removes it", async () => {
    const ns = [root()];
    await put(ns, "found", { v: 1 }, { ttl: 2 });
    await put(ns, "kept", { v: 1 }, { ttl: 2 });
    await put(ns, "kept", { v: 2 }); // no ttl now: never expires
    await advanceClock(1.5 * MINUTE_MS);
    await agentServer("POST", "/store/items/search", { body: { namespace_prefix: ns, filter: { v: 1 } } });
    await advanceClock(1.5 * MINUTE_MS);
    expect(
      (await agentServer("POST", "/store/items/search", { body: { namespace_prefix: ns, refresh_ttl: false } })).body.items.map((i: any) => i.key).sort(),
    ).toEqual(["found", "kept"]);
    await advanceClock(1 * MINUTE_MS);
    expect((await agentServer("POST", "/store/items/search", { body: { namespace_prefix: ns } })).body.items.map((i: any) => i.key)).toEqual(["kept"]);
  });

  it("answers 422 for a ttl that is not a positive number of minutes", async () => {
    const res = await agentServer("PUT", "/store/items", { body: { namespace: ["a"], key: "k", value: {}, ttl: 0 } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: "value_error", loc: ["body", "ttl"] });
  });
});

describe("POST /store/items/search", () => {
  it("finds items under a namespace prefix (label by label), most recently updated first, filtered, paged", async () => {
    const r = root();
    await put([r, "a"], "k1", { kind: "note", stars: 1 });
    await advanceClock(10);
    await put([r, "a", "deep"], "k2", { kind: "note", stars: 5 });
    await advanceClock(10);
    await put([r, "ab"], "k3", { kind: "todo", stars: 3 });

    const all = await agentServer("POST", "/store/items/search", { body: { namespace_prefix: [r] } });
    expect(all.status).toBe(200);
    expect(all.body.items.map((i: any) => i.key)).toEqual(["k3", "k2", "k1"]);
    expect(all.body.items[0]).toEqual({
      namespace: [r, "ab"],
      key: "k3",
      value: { kind: "todo", stars: 3 },
      created_at: expect.stringMatching(TIMESTAMP),
      updated_at: expect.stringMatching(TIMESTAMP),
      score: null,
    });

    const under = async (body: Record<string, unknown>) =>
      (await agentServer("POST", "/store/items/search", { body: { namespace_prefix: [r], ...body } })).body.items.map((i: any) => i.key);
    expect(await under({ namespace_prefix: [r, "a"] })).toEqual(["k2", "k1"]);
    expect(await under({ filter: { kind: "note" } })).toEqual(["k2", "k1"]);
    expect(await under({ filter: { stars: { $gte: 3 } } })).toEqual(["k3", "k2"]);
    expect(await under({ filter: { kind: "note", stars: { $lt: 5 } } })).toEqual(["k1"]);
    expect(await under({ limit: 1, offset: 1 })).toEqual(["k2"]);
    // No vector index: a query is accepted and does not rank or narrow.
    expect(await under({ query: "todo" })).toEqual(["k3", "k2", "k1"]);
  });

  it("answers 422 for an unknown filter operator and bad paging", async () => {
    const res = await agentServer("POST", "/store/items/search", { body: { filter: { stars: { $in: [1] } }, limit: 0, offset: -1 } });
    expect(res.status).toBe(422);
    expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["value_error", "body.filter.stars.$in"],
      ["greater_than_equal", "body.limit"],
      ["greater_than_equal", "body.offset"],
    ]);
  });
});

describe("POST /store/namespaces", () => {
  it("lists the distinct namespaces sorted, by prefix and suffix (with * wildcards), cut to max_depth, paged", async () => {
    const r = root();
    for (const ns of [
      [r, "users", "u1", "memories"],
      [r, "users", "u1", "profile"],
      [r, "users", "u2", "memories"],
      [r, "docs"],
    ])
      await put(ns, "k", {});
    await put([r, "users", "u1", "memories"], "k2", {});

    const list = async (body: Record<string, unknown>) => {
      const res = await agentServer("POST", "/store/namespaces", { body: { prefix: [r], ...body } });
      expect(res.status).toBe(200);
      // The real server's {namespaces} (the reference document's bare list is amended: agent-server-amendments.ts).
      expect(Object.keys(res.body)).toEqual(["namespaces"]);
      return res.body.namespaces;
    };
    expect(await list({})).toEqual([
      [r, "docs"],
      [r, "users", "u1", "memories"],
      [r, "users", "u1", "profile"],
      [r, "users", "u2", "memories"],
    ]);
    expect(await list({ suffix: ["memories"] })).toEqual([
      [r, "users", "u1", "memories"],
      [r, "users", "u2", "memories"],
    ]);
    expect(await list({ prefix: [r, "users", "*", "profile"] })).toEqual([[r, "users", "u1", "profile"]]);
    expect(await list({ max_depth: 3 })).toEqual([
      [r, "docs"],
      [r, "users", "u1"],
      [r, "users", "u2"],
    ]);
    expect(await list({ max_depth: 2, limit: 1, offset: 1 })).toEqual([[r, "users"]]);
  });

  it("answers 422 for a bad label, max_depth or limit", async () => {
    const res = await agentServer("POST", "/store/namespaces", { body: { prefix: ["a."], max_depth: 0, limit: 0 } });
    expect(res.body.detail.map((e: any) => [e.type, e.loc.join(".")])).toEqual([
      ["value_error", "body.prefix.0"],
      ["greater_than_equal", "body.max_depth"],
      ["greater_than_equal", "body.limit"],
    ]);
  });
});
