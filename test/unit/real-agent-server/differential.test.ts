// The official clients against the real open-source agent server (tools/real-agent-server), direct
// and through `npm start` in front of it: the same statuses, bodies (ids and times aside) and event
// sequences. Differences the gateway still makes are marked it.fails with the issue-43 item that
// removes them, so each fix turns one green (and its it.fails red, to be flipped).
import { Client as Client2 } from "@langchain/langgraph-sdk";
import { Client as Client1 } from "langgraph-sdk-v1";
import { describe, expect, it } from "vitest";
import { comparable, contents, freshKey, realServerAndGateway, say } from "./support.ts";

// This file's ports, in the real-agent-server range (19700-19799).
const both = realServerAndGateway({ server: 19700, edge: 19701, private: 19702 });

type Way = "direct" | "through";
const ways: Way[] = ["direct", "through"];
const apiUrl = (way: Way) => (way === "direct" ? both().direct : both().through);

const clients = {
  "1.15": (way: Way) => new Client1({ apiUrl: apiUrl(way), apiKey: freshKey(), callerOptions: { maxRetries: 0 } }),
  "2.0.0": (way: Way) => new Client2({ apiUrl: apiUrl(way), apiKey: freshKey(), callerOptions: { maxRetries: 0 } }),
};

/** Runs `scenario` direct and through the gateway and gives both results, made comparable. */
async function eachWay<T>(scenario: (way: Way) => Promise<T>): Promise<{ direct: unknown; through: unknown }> {
  const [direct, through] = await Promise.all(ways.map(async (way) => comparable(await scenario(way))));
  return { direct, through };
}

describe.each(Object.entries(clients))("the official client %s, direct and through the gateway", (_version, client) => {
  it("searches the assistants: the graphs' default assistants alike", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const found = await client(way).assistants.search({ limit: 10 });
      return found.toSorted((a, b) => a.graph_id.localeCompare(b.graph_id));
    });
    expect((direct as Array<{ graph_id: string }>).map((a) => a.graph_id)).toEqual(["agent", "approval", "slow"]);
    expect(through).toEqual(direct);
  });

  it("runs agent with runs.wait on a new thread: the same values", async () => {
    const { direct, through } = await eachWay(async (way) => {
      const c = client(way);
      const thread = await c.threads.create();
      return c.runs.wait(thread.thread_id, "agent", { input: say("hello there") });
    });
    expect(contents(direct)).toEqual(["hello there", "you said: hello there"]);
    expect(through).toEqual(direct);
  });
});
