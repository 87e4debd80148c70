// Setup file of the emulator-agent-server project: each test file starts on empty Durable Objects,
// as it did with a runner of its own. The files share a runner (one workerd per vitest worker),
// and the agent server keeps one state object for every caller (threads, runs, crons and their
// one alarm), which each file reads as its own. So before a file every object of the emulator's
// namespaces is aborted (what an earlier file left running, a stream or a run, ends with it),
// emptied (storage and alarm) and aborted again, so its next instance starts on empty storage.
// (`reset` from cloudflare:test also deletes the test runner's own object, and the next file
// hangs; a graceful eviction waits for the streams an earlier file left open.)
import { listDurableObjectIds, runInDurableObject } from "cloudflare:test";
import { beforeAll } from "vitest";
import { agentServerEnv } from "../support/emulator-env.ts";

const FRESH = "a new test file starts on empty objects (test/workers/agent-server/fresh-state.ts)";

/** Runs `work` in the object's current instance, then ends that instance; its rejection (the abort) is the point. */
const thenAbort = (stub: DurableObjectStub, work: (state: DurableObjectState) => Promise<void>) =>
  runInDurableObject(stub, async (_instance, state: DurableObjectState) => {
    await work(state);
    state.abort(FRESH);
  }).catch(() => undefined);

beforeAll(async () => {
  for (const namespace of [agentServerEnv.AGENT_SERVER_STATE, agentServerEnv.AGENT_SERVER_DEPLOYMENTS] as DurableObjectNamespace[]) {
    for (const id of await listDurableObjectIds(namespace)) {
      // A stub per call: one whose object was aborted stays broken.
      await thenAbort(namespace.get(id), async () => undefined);
      await thenAbort(namespace.get(id), async (state) => {
        await state.storage.deleteAlarm();
        await state.storage.deleteAll();
      });
    }
  }
});
