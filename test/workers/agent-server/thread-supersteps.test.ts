// POST /threads with `supersteps`: each superstep's updates become a checkpoint on the new thread,
// as POST /threads/{id}/state would write them, so a thread can be rebuilt from another's history
// (the open-source server's "batch update state" check).
import { describe, expect, it } from "vitest";
import { agentServer, streamRun } from "./support.ts";
import { say } from "./run-support.ts";

const history = async (threadId: string) => (await agentServer("POST", `/threads/${threadId}/history`, { body: { limit: 100 } })).body;

describe("POST /threads with supersteps", () => {
  it("rebuilds a thread that ran: the same checkpoints, each with its next node and values", async () => {
    const ran = (await agentServer("POST", "/threads", { body: { metadata: { graph_id: "pipeline" } } })).body;
    const { events } = await streamRun(ran.thread_id, { assistant_id: "pipeline", input: say("hi"), stream_mode: ["updates"] });
    const original = await history(ran.thread_id);
    const started = original.at(-2).values;
    const res = await agentServer("POST", "/threads", {
      body: {
        metadata: { graph_id: "pipeline" },
        supersteps: [
          { updates: [{ as_node: "__input__", values: started }] },
          { updates: [{ as_node: "__start__", values: started }] },
          ...events
            .filter((e) => e.event === "updates")
            .map(({ data }) => ({ updates: Object.entries(data).map(([as_node, values]) => ({ as_node, values })) })),
        ],
      },
    });
    expect(res.status).toBe(200);
    const rebuilt = await history(res.body.thread_id);
    expect(rebuilt.map(({ next, values }: any) => ({ next, values }))).toMatchObject(original.map(({ next, values }: any) => ({ next, values })));
    expect(rebuilt.map((c: any) => c.metadata.source)).toEqual(["update", "update", "update", "input"]);
    expect(res.body.values).toEqual(original[0].values);
    expect((await agentServer("GET", `/threads/${res.body.thread_id}/state`)).body).toMatchObject({ next: [], values: original[0].values });
  });

  it("answers 422 and creates no thread for a node the graph lacks, an empty superstep or a command", async () => {
    const thread_id = crypto.randomUUID();
    for (const update of [
      { as_node: "nowhere", values: null },
      { as_node: "draft", command: { goto: "review" } },
    ]) {
      const res = await agentServer("POST", "/threads", { body: { thread_id, metadata: { graph_id: "pipeline" }, supersteps: [{ updates: [update] }] } });
      expect(res.status).toBe(422);
      expect(res.body.detail[0].loc.slice(0, 4)).toEqual(["body", "supersteps", 0, "updates"]);
    }
    const empty = await agentServer("POST", "/threads", { body: { thread_id, metadata: { graph_id: "pipeline" }, supersteps: [{ updates: [] }] } });
    expect(empty.status).toBe(422);
    expect((await agentServer("GET", `/threads/${thread_id}`)).status).toBe(404);
  });

  it("answers 400 for supersteps on a thread with no graph_id in its metadata", async () => {
    const res = await agentServer("POST", "/threads", { body: { supersteps: [{ updates: [{ as_node: "__input__", values: null }] }] } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toContain("graph_id");
  });
});
