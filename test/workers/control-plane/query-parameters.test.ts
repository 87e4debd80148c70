// Query parameters read as FastAPI reads them, the same in every control-plane listing, through the
// shared kit's helpers (emulators/shared/pydantic/query.ts). Answers contract-checked (support.ts).
import { describe, expect, it } from "vitest";
import { create } from "./deployment-support.ts";
import { controlPlane, freshWorkspace } from "./support.ts";

const TRUE = ["true", "TRUE", "1", "yes", "On", "t", "Y"];
const FALSE = ["false", "False", "0", "no", "OFF", "f", "n"];

describe("booleans, as pydantic reads them", () => {
  it("remote_reconciled on both listings: any of pydantic's words; true lists none (nothing here was reconciled), false lists all", async () => {
    const workspace = freshWorkspace();
    const deployment = await create(workspace);
    for (const word of TRUE) {
      expect((await controlPlane("GET", `/v2/deployments?remote_reconciled=${word}`, { workspace })).body.resources).toEqual([]);
      expect((await controlPlane("GET", `/v2/deployments/${deployment.id}/revisions?remote_reconciled=${word}`, { workspace })).body.resources).toEqual([]);
    }
    for (const word of FALSE) {
      expect((await controlPlane("GET", `/v2/deployments?remote_reconciled=${word}`, { workspace })).body.resources).toHaveLength(1);
      expect((await controlPlane("GET", `/v2/deployments/${deployment.id}/revisions?remote_reconciled=${word}`, { workspace })).body.resources).toHaveLength(1);
    }
  });

  it.each([
    ["GET", "/v2/deployments", "remote_reconciled"],
    ["GET", "/v2/deployments/{id}/revisions", "remote_reconciled"],
    ["DELETE", "/v2/deployments/{id}", "delete_tracing_project"],
  ])("%s %s answers 422 bool_parsing for %s=not-a-bool, and deletes nothing", async (method, template, name) => {
    const workspace = freshWorkspace();
    const deployment = await create(workspace);
    for (const word of ["not-a-bool", "2", "", "truee"]) {
      const res = await controlPlane(method, `${template.replace("{id}", deployment.id)}?${name}=${word}`, { workspace });
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([
        { type: "bool_parsing", loc: ["query", name], msg: "Input should be a valid boolean, unable to interpret input", input: word },
      ]);
    }
    expect((await controlPlane("GET", `/v2/deployments/${deployment.id}`, { workspace })).status).toBe(200);
  });

  it("delete_tracing_project takes pydantic's words", async () => {
    const workspace = freshWorkspace();
    for (const word of ["YES", "off"]) {
      const deployment = await create(workspace);
      expect((await controlPlane("DELETE", `/v2/deployments/${deployment.id}?delete_tracing_project=${word}`, { workspace })).status).toBe(204);
    }
  });
});

describe("paging, the same bounds on every listing", () => {
  it.each(["/v2/deployments", "/v2/deployments/{id}/revisions", "/v2/listeners"])(
    "%s: limit 1..100, offset >= 0, integers as pydantic reads them",
    async (template) => {
      const workspace = freshWorkspace();
      const deployment = await create(workspace);
      const path = template.replace("{id}", deployment.id);
      for (const [query, error] of [
        ["limit=0", { type: "greater_than_equal", loc: ["query", "limit"], ctx: { ge: 1 } }],
        ["limit=101", { type: "less_than_equal", loc: ["query", "limit"], ctx: { le: 100 } }],
        ["limit=1.5", { type: "int_parsing", loc: ["query", "limit"] }],
        ["limit=0x10", { type: "int_parsing", loc: ["query", "limit"] }],
        ["offset=-1", { type: "greater_than_equal", loc: ["query", "offset"], ctx: { ge: 0 } }],
        ["offset=", { type: "int_parsing", loc: ["query", "offset"] }],
      ] as const) {
        const res = await controlPlane("GET", `${path}?${query}`, { workspace });
        expect(res.status, `${path}?${query}`).toBe(422);
        expect(res.body.detail[0]).toMatchObject(error);
      }
      expect((await controlPlane("GET", `${path}?limit=%20100%20&offset=+0`, { workspace })).status).toBe(200);
    },
  );
});
