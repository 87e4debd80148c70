// How the control-plane emulator reads request bodies: the shared reader
// (emulators/shared/request-body.ts) whose bounds test/workers/agent-server/body-reading.test.ts
// walks through; here, that the control plane refuses past the bound too, and reads the body to its
// end before any answer, even a refusal, so an upload is never cut off.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createControlPlane } from "../../../emulators/control-plane/app.ts";
import { MAX_JSON_DEPTH } from "../../../emulators/shared/json-depth.ts";
import { bodyAt } from "../support/nested-json.ts";
import { contractChecked, controlPlane, freshWorkspace } from "./support.ts";

const PARSE_ERROR = { detail: "There was an error parsing the body" };

describe(`a body nested ${MAX_JSON_DEPTH + 1} levels is refused with 400, as FastAPI refuses it`, () => {
  it("POST /v2/deployments", async () => {
    const res = await controlPlane("POST", "/v2/deployments", { workspace: freshWorkspace(), rawBody: bodyAt(MAX_JSON_DEPTH + 1, "source_config").text });
    expect(res).toMatchObject({ status: 400, body: PARSE_ERROR });
  });

});

describe("the body is read to its end before any answer, even a refusal, so an upload is never cut off", () => {
  it.each([
    ["no credentials", "/v2/listeners", {}, 401],
    ["a malformed X-Tenant-Id", "/v2/listeners", { "x-tenant-id": "nope" }, 422],
    ["an unknown path", "/nowhere", {}, 404],
  ] as const)("%s", async (_name, path, headers, status) => {
    let finished = false;
    let chunks = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (chunks++ < 64) return controller.enqueue(new Uint8Array(1024).fill(0x20));
        finished = true;
        controller.close();
      },
    });
    const checked = contractChecked((request) => createControlPlane().fetch(request, env));
    const res = await checked(new Request(`https://emulator.test${path}`, { method: "POST", headers, body }));
    expect(res.status).toBe(status);
    expect(finished).toBe(true);
  });
});
