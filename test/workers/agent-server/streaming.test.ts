// Pacing: with AGENT_SERVER_STEP_DELAY_MS set, a run waits that long on the state object's clock
// before each step, so a client holds the first event while the run is still going. The tests set
// the longest delay there is and move the clock (clock.ts): a step comes when the test lets its
// time pass, never by the machine's. (That the gateway passes each event on as it comes:
// test/workers/through-gateway/agent-server-stream.test.ts.)
import { createExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAgentServer } from "../../../emulators/agent-server/app.ts";
import type { AgentServerBindings } from "../../../emulators/agent-server/env.ts";
import { advanceClock } from "./clock.ts";
import { contents, EventReader } from "./run-support.ts";
import { AGENT_SERVER_URL, contractChecked, freshCaller } from "./support.ts";

/** The longest step delay the setting takes: no machine is slow enough to let it pass on its own within a test. */
const STEP_MS = 60_000;

/** The real emulator app on this Worker's own state, with its step delay set in its env. */
function pacedAgentServer(delay = String(STEP_MS)) {
  const agentServer = createAgentServer();
  const agentEnv = { ...(env as unknown as AgentServerBindings), AGENT_SERVER_STEP_DELAY_MS: delay };
  const checkedFetch = contractChecked(async (request) => agentServer.fetch(request, agentEnv, createExecutionContext()));
  return async (method: string, path: string, body?: unknown): Promise<Response> => {
    const headers: Record<string, string> = freshCaller();
    if (body !== undefined) headers["content-type"] = "application/json";
    return checkedFetch(`${AGENT_SERVER_URL}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  };
}

const json = async (res: Response) => (await res.json()) as any;

describe("paced runs", () => {
  it("takes each step once its delay has passed on the state object's clock, and not before", async () => {
    const call = pacedAgentServer();
    const thread = await json(await call("POST", "/threads", {}));
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: "pipeline",
      input: { messages: [{ role: "user", content: "paced" }] },
      stream_mode: ["updates"],
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-location")).toMatch(new RegExp(`^/threads/${thread.thread_id}/runs/`));
    const events = new EventReader(res);
    expect((await events.next())!.event).toBe("metadata");

    // The run waits before its first step until the clock has moved a step delay on.
    const waiting = await json(await call("GET", `/threads/${thread.thread_id}/state`));
    expect({ values: contents(waiting.values), next: waiting.next }).toEqual({ values: ["paced"], next: ["draft"] });
    await advanceClock(STEP_MS);
    expect(Object.keys((await events.next())!.data)).toEqual(["draft"]);
    const drafted = await json(await call("GET", `/threads/${thread.thread_id}/state`));
    expect({ values: contents(drafted.values), next: drafted.next }).toEqual({ values: ["paced", "draft: paced"], next: ["review"] });
    await advanceClock(STEP_MS);
    expect(Object.keys((await events.next())!.data)).toEqual(["review"]);
    expect(await events.next()).toBeUndefined();

    const after = await json(await call("GET", `/threads/${thread.thread_id}`));
    expect(after.status).toBe("idle");
    expect(contents(after.values)).toEqual(["paced", "draft: paced", "reviewed: paced"]);
  });

  it("delivers each event while the run is still going", async () => {
    const call = pacedAgentServer();
    const thread = await json(await call("POST", "/threads", {}));
    // The pipeline drafts, then holds before its review until cancelled: it is certainly still
    // going while the client reads.
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: "pipeline",
      input: { messages: [{ role: "user", content: "paced [[hold]]" }] },
      stream_mode: ["updates"],
    });
    const events = new EventReader(res);
    const first = (await events.next())!;
    expect(first.event).toBe("metadata");
    // Holding the first event: the thread is busy and has no reply yet, and a second run on it is
    // refused (multitask_strategy reject).
    const during = await json(await call("GET", `/threads/${thread.thread_id}`));
    expect(during.status).toBe("busy");
    expect(during.values).toEqual({});
    const second = await call("POST", `/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent", multitask_strategy: "reject" });
    expect(second.status).toBe(409);
    expect((await json(second)).detail).toContain(`Thread ${thread.thread_id} is busy with run ${first.data.run_id}`);

    // The draft's update comes once its step's time has passed, while the run holds; the stream
    // ends when it is cancelled.
    await advanceClock(STEP_MS);
    expect(Object.keys((await events.next())!.data)).toEqual(["draft"]);
    await call("POST", `/threads/${thread.thread_id}/runs/${first.data.run_id}/cancel`);
    expect(await events.next()).toBeUndefined();
  });

  it("finishes and saves a run whose client hung up after the first event", async () => {
    const call = pacedAgentServer();
    const thread = await json(await call("POST", "/threads", {}));
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, {
      assistant_id: "agent",
      input: { messages: [{ role: "user", content: "bye" }] },
    });
    const runPath = res.headers.get("content-location")!;
    const events = new EventReader(res);
    expect((await events.next())!.event).toBe("metadata");
    await events.drop();

    // The run's one step comes when its time has passed, with nobody listening; join answers once it is saved.
    await advanceClock(STEP_MS);
    await call("GET", `${runPath}/join`);
    const state = await json(await call("GET", `/threads/${thread.thread_id}`));
    expect(state.status).toBe("idle");
    expect(contents(state.values)).toEqual(["bye", "you said: bye"]);
  });

  it("answers 500 naming the setting when AGENT_SERVER_STEP_DELAY_MS is not a number of milliseconds", async () => {
    const call = pacedAgentServer("soon");
    const thread = await json(await call("POST", "/threads", {}));
    const res = await call("POST", `/threads/${thread.thread_id}/runs/stream`, { assistant_id: "agent" });
    expect(res.status).toBe(500);
    expect(await json(res)).toEqual({ detail: "AGENT_SERVER_STEP_DELAY_MS must be a whole number of milliseconds from 0 to 60000, got 'soon'." });
  });
});
