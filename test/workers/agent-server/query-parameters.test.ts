// Every query parameter of the reference document (the 2026 one) with a boolean, integer or enum schema is held
// to it as FastAPI holds it: a wrong value is a 422 whose error is located at
// ["query", <parameter>, ...]. The table is the document itself, so a parameter added to it is
// checked without a test change. Every answer is held to the contract (support.ts).
import { describe, expect, it } from "vitest";
import reference from "../../../emulators/agent-server/system/agent-server.2026.openapi.json";
import { agentServer, send } from "./support.ts";

type Parameter = { name: string; in: string; schema?: Record<string, any> };
type Operation = { parameters?: Parameter[]; requestBody?: unknown };

/** A value the parameter's schema refuses, or undefined for a parameter any text satisfies. */
function wrongValue(schema: Record<string, any>): string | undefined {
  const kinds = [schema, ...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  const types = new Set(kinds.map((k) => k.type ?? k.items?.type).filter(Boolean));
  const enumerated = kinds.some((k) => k.enum || k.items?.enum);
  if (types.has("boolean") && types.has("integer")) return "neither-a-bool-nor-an-int";
  if (types.has("boolean")) return "not-a-bool";
  if (enumerated) return "not-a-documented-value";
  if (types.has("integer")) return "not-an-int";
  return undefined;
}

/** The document's path with made-up path parameters (validation comes before any lookup). */
const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => (name.endsWith("_id") ? crypto.randomUUID() : "emulator-test"));

const CASES = Object.entries(reference.paths as Record<string, Record<string, Operation>>).flatMap(([path, methods]) =>
  Object.entries(methods).flatMap(([method, operation]) =>
    (operation.parameters ?? [])
      .filter((p) => p.in === "query" && p.schema && wrongValue(p.schema) !== undefined)
      .map((p) => ({ method: method.toUpperCase(), path, name: p.name, value: wrongValue(p.schema!)! })),
  ),
);

describe("query parameters read as FastAPI reads them", () => {
  it("the table covers the parameters the issue names, from the document", () => {
    const named = CASES.map((c) => `${c.method} ${c.path} ${c.name}`);
    for (const expected of [
      "GET /assistants/{assistant_id}/subgraphs recurse",
      "GET /assistants/{assistant_id}/subgraphs/{namespace} recurse",
      "GET /ok check_db",
      "GET /metrics format",
      "GET /threads/{thread_id}/runs select",
      // New in the 2026 document (issue 31).
      "GET /store/items refresh_ttl",
      "DELETE /assistants/{assistant_id} delete_threads",
    ]) {
      expect(named).toContain(expected);
    }
    expect(CASES.length).toBeGreaterThanOrEqual(20);
  });

  it.each(CASES)("$method $path ?$name=$value is a 422 at ['query', '$name']", async ({ method, path, name, value }) => {
    const withBody = method !== "GET" && method !== "DELETE";
    const res = await agentServer(method, `${concrete(path)}?${name}=${encodeURIComponent(value)}`, withBody ? { body: {} } : {});
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const locations = (res.body.detail as { loc: unknown[] }[]).map((error) => error.loc.slice(0, 2));
    expect(locations).toContainEqual(["query", name]);
  });

  it("check_db takes 0 and 1 only (the document's integer enum), as pydantic's Literal[0, 1]", async () => {
    for (const value of ["2", "-1", "true", ""]) {
      const res = await agentServer("GET", `/ok?check_db=${value}`);
      expect(res.status, value).toBe(422);
      expect(res.body.detail[0]).toMatchObject({ type: "literal_error", loc: ["query", "check_db"], msg: "Input should be 0 or 1" });
    }
    expect((await agentServer("GET", "/ok?check_db=1")).body).toEqual({ ok: true });
    expect((await agentServer("GET", "/ok?check_db=0")).body).toEqual({ ok: true });
  });

  it("format takes prometheus and json; recurse takes the words pydantic reads as booleans", async () => {
    const bad = await agentServer("GET", "/metrics?format=xml");
    expect(bad.body.detail[0]).toMatchObject({ type: "enum", loc: ["query", "format"], msg: "Input should be 'prometheus' or 'json'" });
    expect((await agentServer("GET", "/metrics?format=json")).body).toHaveProperty("queue");
    const prometheus = await send("GET", "/metrics?format=prometheus");
    expect(prometheus.status).toBe(200);
    expect(await prometheus.text()).toContain("lg_api_num_pending_runs");
    const recurse = await agentServer("GET", "/assistants/agent/subgraphs?recurse=not-a-bool");
    expect(recurse.body.detail[0]).toMatchObject({ type: "bool_parsing", loc: ["query", "recurse"] });
    expect((await agentServer("GET", "/assistants/agent/subgraphs?recurse=YES")).body).toEqual({});
    expect((await agentServer("GET", "/assistants/agent/subgraphs/x?recurse=0")).body).toEqual({});
  });
});

describe("GET /store/items without a namespace", () => {
  it("is the empty namespace, as the document makes namespace optional: null, not a 422", async () => {
    const res = await agentServer("GET", `/store/items?key=k-${crypto.randomUUID()}`);
    expect(res.status).toBe(200);
    expect(res.body).toBeNull();
  });
});
