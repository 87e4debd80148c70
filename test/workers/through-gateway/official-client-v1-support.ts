import { Client, ProtocolWebSocketTransportAdapter } from "langgraph-sdk-v1";
import { AGENT_SERVER_URL, agentServerFetch, freshCaller } from "../agent-server/support.ts";
import { upgradeHeaders } from "../gateway/support.ts";
import { FetchedSocket } from "../support/fetched-socket.ts";

/** A Request-taking fetch, as the 1.15 client's protocol transports call it. */
type Fetch = (input: RequestInfo | URL, init?: RequestInit) => Promise<Response>;

/**
 * The official client at its `latest` tag (1.15), talking to the gateway's own fetch with a key of
 * its own and a fresh client IP per request, every response held to the 2026 document. `through`
 * sees each request and response on their way (a test cuts a stream there).
 */
export function officialClientV1(through: (request: Request, response: Response) => Response = (_, response) => response) {
  const apiKey = `sdk-v1-${crypto.randomUUID()}`;
  const fetch: Fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set("cf-connecting-ip", freshCaller()["cf-connecting-ip"]!);
    const request = new Request(input, { ...init, headers });
    return through(request, await agentServerFetch(request));
  };
  const client = new Client({ apiUrl: AGENT_SERVER_URL, apiKey, callerOptions: { maxRetries: 0, fetch } });
  return { client, apiKey, fetch };
}

/**
 * A WebSocket transport as a Node caller builds one for a keyed client: the client's browser-safe
 * socket refuses headers, so a socket factory adds `x-api-key` itself (with `ws` in Node; here a
 * socket opened through the gateway's fetch, the Workers pool having no outbound socket to it).
 * `drop` cuts the live socket as a network failure would: the client sees 1006, the server a close.
 */
export function keyedSocketTransport(apiKey: string) {
  const sockets: FetchedSocket[] = [];
  const transport = new ProtocolWebSocketTransportAdapter({
    apiUrl: AGENT_SERVER_URL,
    reconnectDelayMs: () => 0,
    webSocketFactory: (url: string) => {
      const socket = new FetchedSocket(url, upgradeHeaders({ ...freshCaller(), "x-api-key": apiKey }));
      sockets.push(socket);
      return socket as unknown as WebSocket;
    },
  });
  return { transport, sockets };
}
