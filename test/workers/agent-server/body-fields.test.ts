// Every field of every request body of the 2026 document with a boolean or enum schema is held to
// it as FastAPI holds it: a wrong value is a 422 with an error located at ["body", <field>, ...].
// The table is the document itself, so a field added to it is checked without a test change; the
// query parameters have their own table (query-parameters.test.ts). Every answer is held to the
// contract (support.ts).
import { describe, expect, it } from "vitest";
import reference from "../../../emulators/agent-server/system/agent-server.2026.openapi.json";
import { agentServer } from "./support.ts";

type Schema = Record<string, any>;
const schemas = (reference as { components: { schemas: Record<string, Schema> } }).components.schemas;

/** The schema a `$ref` names, or the schema itself. */
const resolved = (schema: Schema): Schema => (typeof schema.$ref === "string" ? schemas[schema.$ref.split("/").pop()!]! : schema);

/** A body schema's own properties, `allOf` parts merged (RunCreateStreaming* extend RunCreate*). */
function propertiesOf(schema: Schema): Record<string, Schema> {
  const body = resolved(schema);
  return Object.assign({}, ...(body.allOf ?? []).map((part: Schema) => propertiesOf(part)), body.properties ?? {});
}

/** A value the field's schema refuses: a word for a boolean, an undocumented word for an enum. */
function wrongValue(schema: Schema): unknown {
  const alternatives = [...(schema.oneOf ?? []), ...(schema.anyOf ?? [])];
  const kinds = (alternatives.length > 0 ? alternatives : [schema]).map(resolved);
  const types = new Set(kinds.flatMap((k) => [k.type ?? k.items?.type].flat()).filter(Boolean));
  // A field that also takes an object, a string or anything (no type) would take the wrong value too.
  if (kinds.some((k) => k.type === undefined && !k.enum && !k.items)) return undefined;
  if (types.has("boolean") && !types.has("string") && !types.has("object")) return "not-a-bool";
  const enumerated = kinds.every((k) => k.type === "null" || k.type === "boolean" || k.enum || k.items?.enum || k.const !== undefined);
  if (enumerated && kinds.some((k) => k.enum || k.items?.enum)) return "not-a-documented-value";
  return undefined;
}

/** Operations whose bodies are not FastAPI models: JSON-RPC (MCP, A2A) and protocol v2 envelopes answer in their own shapes. */
const OWN_SHAPES = ["/mcp/", "/a2a/{assistant_id}", "/threads/{thread_id}/commands", "/threads/{thread_id}/stream/events"];

const concrete = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => (name.endsWith("_id") ? crypto.randomUUID() : "emulator-test"));

const CASES = Object.entries(reference.paths as Record<string, Record<string, Schema>>).flatMap(([path, methods]) =>
  Object.entries(methods).flatMap(([method, operation]) => {
    const schema = operation.requestBody?.content?.["application/json"]?.schema;
    if (!schema || OWN_SHAPES.includes(path)) return [];
    return Object.entries(propertiesOf(schema))
      .map(([name, field]) => ({ method: method.toUpperCase(), path, name, value: wrongValue(field) }))
      .filter((c) => c.value !== undefined);
  }),
);

describe("request body fields read as FastAPI reads them", () => {
  it("the table covers the fields issue 31 names, from the document", () => {
    const named = CASES.map((c) => `${c.method} ${c.path} ${c.name}`);
    for (const body of ["POST /runs/crons", "POST /threads/{thread_id}/runs/crons", "PATCH /runs/crons/{cron_id}"]) {
      for (const field of ["stream_subgraphs", "stream_resumable", "durability", "stream_mode", "enabled"]) expect(named).toContain(`${body} ${field}`);
    }
    expect(named).toContain("POST /threads/{thread_id}/runs/stream on_disconnect");
    expect(named).toContain("POST /threads/prune strategy");
    expect(CASES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(CASES)("$method $path {$name: $value} is a 422 at ['body', '$name']", async ({ method, path, name, value }) => {
    const res = await agentServer(method, concrete(path), { body: { [name]: value } });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const locations = (res.body.detail as { loc: unknown[] }[]).map((error) => error.loc.slice(0, 2));
    expect(locations, JSON.stringify(res.body)).toContainEqual(["body", name]);
  });
});
