// The directory record of a pending authorization (`oauth-flow:<auth_id>`, emulators/control-plane/
// oauth/flow.ts) lives only while the authorization may complete (issue 32, an unconfirmed item,
// confirmed: they were never deleted). Expiry is driven on the store's clock and the object's alarm.
import { runDurableObjectAlarm, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { ControlPlaneWorkspace } from "../../../emulators/control-plane/workspace-object.ts";
import { controlPlaneEnv } from "../support/emulator-env.ts";
import { authenticate, createProvider, follow, providerBody } from "./oauth-support.ts";
import { freshWorkspace } from "./support.ts";

const directory = (authId: string) => controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(`oauth-flow:${authId}`);
const records = (authId: string) =>
  runInDurableObject(
    directory(authId),
    (_instance, state: DurableObjectState) => state.storage.sql.exec("SELECT auth_id FROM oauth_flow_directory").toArray().length,
  );

async function pending() {
  const workspace = freshWorkspace();
  const provider = providerBody();
  await createProvider(workspace, provider);
  const started = await authenticate(workspace, { provider: provider.provider_id, scopes: [] });
  expect(started.body.status).toBe("pending");
  return started.body as { auth_id: string; url: string };
}

describe("an OAuth flow's directory record", () => {
  it("is deleted when the redirect completes the authorization", async () => {
    const { auth_id, url } = await pending();
    expect(await records(auth_id)).toBe(1);
    expect((await follow(url)).status).toBe(200);
    expect(await records(auth_id)).toBe(0);
    // The redirect followed again finds no authorization: a 400 in the API's shape, not a 500.
    const again = await follow(url);
    expect(again.status).toBe(400);
  });

  it("is deleted by the object's alarm at its expiry when nobody completes it", async () => {
    const { auth_id } = await pending();
    expect(await records(auth_id)).toBe(1);
    await runInDurableObject(directory(auth_id), (instance: ControlPlaneWorkspace) => {
      instance.oauth().clock = () => Date.now() + 86_400_000;
    });
    expect(await runDurableObjectAlarm(directory(auth_id))).toBe(true);
    expect(await records(auth_id)).toBe(0);
  });
});
