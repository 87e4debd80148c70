import { describe, expect, it } from "vitest";
import { hostedApiTable } from "../../../../src/core/rules/hosted-api.ts";
import { readRequest } from "../../../../src/core/rules/read-request.ts";

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
    [`//api/v1/./runs/{${U}}/`, `/api/v1/runs/${U}`],
  ])("reads the run id in %s as the canonical UUID and forwards that", (raw, canonical) => {
    expect(read(raw)).toMatchObject({ ok: true, path: canonical, upstreamPath: canonical });
  });

  it("leaves UUID-like segments outside a template route alone", () => {
    const simple = U.replaceAll("-", "");
    expect(read(`/commits/o/r/${simple}`)).toMatchObject({ path: `/commits/o/r/${simple}` });
    expect(read(`/runs/${simple}/children`)).toMatchObject({ path: `/runs/${simple}/children` });
    expect(read(`/runs/{not-a-uuid}`)).toMatchObject({ path: "/runs/{not-a-uuid}", upstreamPath: "/runs/%7Bnot-a-uuid%7D" });
  });

  it("refuses a malformed path", () => {
    const result = read("/runs/%zz");
    expect(result).toMatchObject({ ok: false, status: 400 });
    expect(!result.ok && result.detail).toMatch(/^Malformed request path: /);
  });
});
