import { describe, expect, it } from "vitest";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { readRequest } from "../../../../src/core/rules/read-request.ts";
import { ruleTables } from "../../../../src/core/rules/tables.ts";

const U = "67e55044-10b1-426f-9247-bb680e5fe0c8";

function read(rawPath: string, headers: Array<[string, string]> = [], method = "GET") {
  const h = new Headers();
  for (const [name, value] of headers) h.append(name, value);
  return readRequest(hostedApiTable, { method, rawPath, headers: h });
}

describe("readRequest: the request as the upstream reads it", () => {
  it("reads the identity headers", () => {
    expect(
      read(
        "/runs/query",
        [
          ["x-api-key", "k"],
          ["x-user-id", "u"],
        ],
        "POST",
      ),
    ).toMatchObject({ ok: true, apiKey: "k", userId: "u" });
    expect(read("/runs/query")).toMatchObject({ ok: true, apiKey: null, userId: null });
  });

  it.each(["x-api-key", "x-user-id", "X-Api-Key"])("refuses %s sent twice, naming the header", (name) => {
    const result = read("/runs/stats", [
      [name, "E"],
      [name.toLowerCase(), "other"],
    ]);
    expect(result).toMatchObject({ ok: false, status: 400 });
    expect(!result.ok && result.detail).toContain(`Header ${name.toLowerCase()} must be sent once`);
  });

  it("refuses an identity value holding a comma", () => {
    expect(read("/runs/stats", [["x-api-key", "E,F"]])).toMatchObject({ ok: false, status: 400 });
    expect(read("/runs/stats", [["x-user-id", "u, v"]])).toMatchObject({ ok: false, status: 400 });
  });

  it.each(["X-HTTP-Method-Override", "X-HTTP-Method", "X-Method-Override"])("refuses the method override %s", (name) => {
    const result = read("/runs/query", [[name, "POST"]]);
    expect(result).toMatchObject({ ok: false, status: 400 });
    expect(!result.ok && result.detail).toContain(`Header ${name.toLowerCase()} is not accepted`);
  });

  it.each([
    [`/runs/${U.replaceAll("-", "")}`, `/runs/${U}`],
    [`/runs/{${U}}`, `/runs/${U}`],
    [`/runs/%7B${U.toUpperCase()}%7D`, `/runs/${U}`],
    [`/runs/urn:uuid:${U}`, `/runs/${U}`],
    [`/runs/urn%3Auuid%3A${U}`, `/runs/${U}`],
    [`/api/v1/runs/${U.toUpperCase()}`, `/api/v1/runs/${U}`],
    [`/api%2Fv1/runs/${U.toUpperCase()}`, `/api/v1/runs/${U}`],
  ])("reads the run id in %s as the canonical UUID, and leaves the path as sent", (raw, canonical) => {
    expect(read(raw)).toMatchObject({ ok: true, path: canonical, upstreamPath: raw });
  });

  it.each([`//api/v1/runs/{${U}}`, `/api/v1/runs/{${U}}/`, `/api/v1/./runs/${U}`, `/api/v1/runs%2F%2F${U}`])(
    "refuses %s, which the upstream routes as another path, naming the path to send",
    (raw) => {
      const result = read(raw);
      expect(result).toMatchObject({ ok: false, status: 400 });
      expect(!result.ok && result.detail).toMatch(/Send "\/api\/v1\/runs\/[^"]+" instead\.$/);
    },
  );

  it("checks the spelling of the whole path sent (a mount included) as the table's upstream reads it", () => {
    const agent = (rawPath: string, sentPath: string) => readRequest(ruleTables["agent-server"], { method: "GET", rawPath, sentPath, headers: new Headers() });
    expect(agent("/info", "/agent-server/info")).toMatchObject({ ok: true, path: "/info", upstreamPath: "/info" });
    expect(agent("/info", "/agent-server/in%66o")).toMatchObject({ ok: true, path: "/info" });
    expect(agent("/info", "/agent-server//info")).toMatchObject({
      ok: false,
      status: 400,
      detail: expect.stringContaining('Send "/agent-server/info" instead.'),
    });
    expect(agent("/info", "/agent-server%2Finfo")).toMatchObject({ ok: false, status: 400, detail: expect.stringContaining("encoded slash") });
    // The hosted API (Starlette) reads an encoded slash as the gateway does: a separator.
    expect(read("/runs%2Fquery", [], "POST")).toMatchObject({ ok: true, path: "/runs/query", upstreamPath: "/runs%2Fquery" });
  });

  it("leaves UUID-like segments outside a template route alone", () => {
    const simple = U.replaceAll("-", "");
    expect(read(`/commits/o/r/${simple}`)).toMatchObject({ path: `/commits/o/r/${simple}` });
    expect(read(`/runs/${simple}/children`)).toMatchObject({ path: `/runs/${simple}/children` });
    expect(read(`/runs/%7Bnot-a-uuid%7D`)).toMatchObject({ path: "/runs/{not-a-uuid}", upstreamPath: "/runs/%7Bnot-a-uuid%7D" });
  });

  it("refuses a malformed path", () => {
    const result = read("/runs/%zz");
    expect(result).toMatchObject({ ok: false, status: 400 });
    expect(!result.ok && result.detail).toMatch(/^Malformed request path: /);
  });
});
