// The official client at its `latest` tag (@langchain/langgraph-sdk 1.15, the alias
// langgraph-sdk-v1) over WebSocket straight against the emulator: `client.threads.stream()` on a
// new thread (the client makes the id and opens the socket before any command) runs to its end,
// and so does a run that ends before the client's subscriptions reach the server, whose replays
// are filtered per subscription. The 2.0.0 client has no `threads.stream()` (no protocol v2).
import { Client } from "langgraph-sdk-v1";
import { describe, expect, it } from "vitest";
import { say } from "../../support/run-input.ts";
import { FetchedSocket } from "../support/fetched-socket.ts";
import { contents } from "./run-support.ts";
import { AGENT_SERVER_URL, agentServer, freshCaller } from "./support.ts";

/** A client without a key (the browser-safe socket refuses default headers) and its sockets. */
function socketClient() {
  const sockets: FetchedSocket[] = [];
  const client = new Client({ apiUrl: AGENT_SERVER_URL, apiKey: null, callerOptions: { maxRetries: 0 } });
  const webSocketFactory = (url: string) => {
    const socket = new FetchedSocket(url, { upgrade: "websocket", ...freshCaller() }, { paceMs: 5 });
    sockets.push(socket);
    return socket as unknown as WebSocket;
  };
  return { client, sockets, webSocketFactory };
}

describe("the official client 1.15 over WebSocket, against the emulator", () => {
  it("runs a new thread (the client's own id) to its end with threads.stream({assistantId, transport: 'websocket'})", async () => {
    const { client, sockets, webSocketFactory } = socketClient();
    const stream = client.threads.stream({ assistantId: "agent", transport: "websocket", webSocketFactory });
    const started = await stream.run.start({ input: say("hello new thread") });
    expect(started).toEqual({ run_id: expect.any(String) });
    const output: any = await stream.output;
    expect(contents(output)).toEqual(["hello new thread", "you said: hello new thread"]);
    await stream.close();
    expect(sockets).toHaveLength(1);
    expect(sockets[0]!.closedBy).toBeUndefined();
    const thread = await agentServer("GET", `/threads/${stream.threadId}`);
    expect(thread.status).toBe(200);
  });

  it("pauses on an interrupt and resumes with input.respond over the socket", async () => {
    const { client, webSocketFactory } = socketClient();
    const stream = client.threads.stream({ assistantId: "approval", transport: "websocket", webSocketFactory });
    await stream.run.start({ input: say("ship it") });
    await stream.output;
    expect(stream.interrupted).toBe(true);
    const lifecycle = await stream.subscribe(["lifecycle"]);
    await stream.input.respond({ namespace: [], interrupt_id: stream.interrupts[0]!.interruptId, response: "approve" });
    for await (const event of lifecycle as AsyncIterable<any>) if (event.params.data.event === "completed") break;
    await stream.close();
    const state = await agentServer("GET", `/threads/${stream.threadId}/state`);
    expect(contents(state.body.values).at(-1)).toBe("published: draft: ship it");
  });
});
