// How the control-plane emulator reads request bodies: the shared reader
// (emulators/shared/request-body.ts) whose bounds test/workers/agent-server/body-reading.test.ts
// walks through; here, that the control plane refuses past the bound too, and reads the body to its
// end before any answer, even a refusal, so an upload is never cut off.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createControlPlane } from "../../../emulators/control-plane/app.ts";
import { MAX_JSON_DEPTH } from "../../../emulators/shared/json-depth.ts";
import { bodyAt } from "../../support/nested-json.ts";
import { contractChecked, controlPlane, freshWorkspace } from "./support.ts";
import { trackedUpload } from "../support/tracked-upload.ts";

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
    ["a malformed X-Tenant-Id", "/v2/listeners", { "x-api-key": "body-reading-key", "x-tenant-id": "nope" }, 422],
    ["an X-Tenant-Id alone", "/v2/listeners", { "x-tenant-id": crypto.randomUUID() }, 401],
    ["an unknown path", "/nowhere", {}, 404],
  ] as const)("%s", async (_name, path, headers, status) => {
    const { body, finished } = trackedUpload();
    const checked = contractChecked((request) => createControlPlane().fetch(request, env));
    const res = await checked(new Request(`https://emulator.test${path}`, { method: "POST", headers, body }));
    expect(res.status).toBe(status);
    expect(finished()).toBe(true);
  });
});
