// Under npm start's mount, the agent server's UI URLs (built from Host alone) get the mount back.
import { describe, expect, it } from "vitest";
import { isUiRoute, withMountInUiUrls } from "../../../src/gateway/mount-urls.ts";

const answer = (body: string, headers: Record<string, string> = { "content-type": "text/plain; charset=UTF-8" }, status = 200) =>
  new Response(body, { status, headers: { "content-length": String(body.length), ...headers } });

describe("the UI route's URLs under a mount", () => {
  it("is POST /ui/{agent} only", () => {
    expect(isUiRoute("POST", "/ui/agent")).toBe(true);
    expect(isUiRoute("post", "/ui/agent")).toBe(true);
    expect(isUiRoute("GET", "/ui/agent")).toBe(false);
    expect(isUiRoute("POST", "/ui/agent/entrypoint.js")).toBe(false);
    expect(isUiRoute("POST", "/threads")).toBe(false);
  });

  it("puts the mount into every URL on the public host, and the length is the new body's", async () => {
    const body = '<link href="http://h:1/ui/a/entrypoint.css"><script src="http://h:1/ui/a/entrypoint.js"></script><a href="http://other/ui/x">';
    const res = await withMountInUiUrls(answer(body), "h:1", "/agent-server");
    const text = await res.text();
    expect(text).toBe(
      '<link href="http://h:1/agent-server/ui/a/entrypoint.css"><script src="http://h:1/agent-server/ui/a/entrypoint.js"></script><a href="http://other/ui/x">',
    );
    expect(res.headers.get("content-length")).toBeNull();
    expect(res.headers.get("content-type")).toBe("text/plain; charset=UTF-8");
  });

  it("leaves a compressed, failed or non-text answer as it is", async () => {
    for (const res of [
      answer("x", { "content-type": "text/plain", "content-encoding": "gzip" }),
      answer("//h:1/ui/a", { "content-type": "text/plain" }, 404),
      answer("//h:1/ui/a", { "content-type": "application/json" }),
    ]) {
      expect(await withMountInUiUrls(res, "h:1", "/m")).toBe(res);
    }
  });
});
