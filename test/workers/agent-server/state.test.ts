// The state object: version numbers under concurrency, and nothing lost across a restart.
import { evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { stateOf } from "../../../emulators/agent-server/state-access.ts";
import { agentServer, createAssistant, createThread, streamRun } from "./support.ts";
import { agentServerEnv } from "../support/emulator-env.ts";

describe("version numbering under concurrency", () => {
  it("gives 20 concurrent PATCHes versions 2..21, each exactly once, and the versions list has no gaps", async () => {
    const assistant = await createAssistant({ graph_id: "agent" });
    const patches = await Promise.all(
      Array.from({ length: 20 }, (_, i) => agentServer("PATCH", `/assistants/${assistant.assistant_id}`, { body: { context: { model: `m${i}` } } })),
    );
    expect(patches.map((p) => p.status)).toEqual(Array(20).fill(200));
    expect(patches.map((p) => p.body.version).sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i + 2));
    // Each version holds the configuration of the request that created it.
    for (const p of patches) expect(p.body.context.model).toMatch(/^m\d+$/);
    expect(new Set(patches.map((p) => p.body.context.model)).size).toBe(20);

    const versions = await agentServer("POST", `/assistants/${assistant.assistant_id}/versions`, { body: { limit: 100 } });
    expect(versions.body.map((v: any) => v.version)).toEqual(Array.from({ length: 21 }, (_, i) => 21 - i));
    expect((await agentServer("GET", `/assistants/${assistant.assistant_id}`)).body.version).toBe(21);
  });

  it("lets exactly one of several concurrent creates of one assistant_id win", async () => {
    const assistant_id = crypto.randomUUID();
    const results = await Promise.all(Array.from({ length: 8 }, () => agentServer("POST", "/assistants", { body: { assistant_id, graph_id: "agent" } })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409, 409, 409, 409, 409, 409, 409]);
  });
});

describe("durability", () => {
  it("keeps assistants, versions, the active version, threads and runs across a restart of the object", async () => {
    const assistant = await createAssistant({ graph_id: "agent", context: { system_prompt: "v1" } });
    await agentServer("PATCH", `/assistants/${assistant.assistant_id}`, { body: { context: { system_prompt: "v2" } } });
    await agentServer("POST", `/assistants/${assistant.assistant_id}/latest`, { body: { version: 1 } });
    const thread = await createThread({ metadata: { keep: true } });
    const { res } = await streamRun(thread.thread_id, { assistant_id: assistant.assistant_id, input: { messages: [{ role: "user", content: "persist" }] } });
    const runPath = res.headers.get("content-location")!;
    const before = {
      assistant: (await agentServer("GET", `/assistants/${assistant.assistant_id}`)).body,
      versions: (await agentServer("POST", `/assistants/${assistant.assistant_id}/versions`)).body,
      thread: (await agentServer("GET", `/threads/${thread.thread_id}`)).body,
      run: (await agentServer("GET", runPath)).body,
      defaults: (await agentServer("GET", "/assistants/agent")).body,
    };

    await evictDurableObject(stateOf(agentServerEnv));

    expect((await agentServer("GET", `/assistants/${assistant.assistant_id}`)).body).toEqual(before.assistant);
    expect((await agentServer("POST", `/assistants/${assistant.assistant_id}/versions`)).body).toEqual(before.versions);
    expect((await agentServer("GET", `/threads/${thread.thread_id}`)).body).toEqual(before.thread);
    expect((await agentServer("GET", runPath)).body).toEqual(before.run);
    // Default assistants are seeded once: a restart does not recreate them with new timestamps.
    expect((await agentServer("GET", "/assistants/agent")).body).toEqual(before.defaults);
    expect(before.assistant.version).toBe(1);
    expect(before.thread.values.messages[1].content).toBe("v1 | you said: persist");

    // Numbering continues from the stored versions.
    const next = await agentServer("PATCH", `/assistants/${assistant.assistant_id}`, { body: { context: {} } });
    expect(next.body.version).toBe(3);
  });
});
