import { exports } from "cloudflare:workers";
import { Client, ProtocolWebSocketTransportAdapter } from "langgraph-sdk-v1";
import { AGENT_SERVER_URL, agentServerFetch, freshCaller } from "../agent-server/support.ts";
import { upgradeHeaders } from "../gateway/support.ts";

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
  const sockets: GatewaySocket[] = [];
  const transport = new ProtocolWebSocketTransportAdapter({
    apiUrl: AGENT_SERVER_URL,
    reconnectDelayMs: () => 0,
    webSocketFactory: (url: string) => {
      const socket = new GatewaySocket(url, { ...freshCaller(), "x-api-key": apiKey });
      sockets.push(socket);
      return socket as unknown as WebSocket;
    },
  });
  return { transport, sockets };
}

/**
 * The part of a browser WebSocket the 1.15 transport uses (readyState, send, close, open /
 * message / close / error events), over a socket the gateway's fetch upgraded.
 */
export class GatewaySocket extends EventTarget {
  readyState = 0;
  /** What the server closed with, if it did. */
  closedBy: { code: number; reason: string } | undefined;
  #socket: WebSocket | undefined;
  #done = false;

  constructor(url: string, headers: Record<string, string>) {
    super();
    void exports.default.fetch(new Request(url.replace(/^ws/, "http"), { headers: upgradeHeaders(headers) })).then((res) => {
      if (res.status !== 101 || !res.webSocket) {
        this.dispatchEvent(new Event("error"));
        return this.#closed(1006, `upgrade answered ${res.status}`);
      }
      const socket = res.webSocket;
      socket.accept();
      this.#socket = socket;
      this.readyState = 1;
      socket.addEventListener("message", (event) => {
        if (this.#done) return;
        this.dispatchEvent(new MessageEvent("message", { data: event.data }));
      });
      socket.addEventListener("close", (event) => {
        this.closedBy = { code: event.code, reason: event.reason };
        this.#closed(event.code, event.reason);
      });
      this.dispatchEvent(new Event("open"));
    });
  }

  send(data: string): void {
    this.#socket!.send(data);
  }

  close(code = 1000, reason = ""): void {
    this.#socket?.close(code, reason);
    this.#closed(code, reason);
  }

  /** The connection drops: the server sees the socket closed, the client an abnormal close (1006). */
  drop(): void {
    this.#socket?.close(1001, "dropped by the test");
    this.#closed(1006, "");
  }

  #closed(code: number, reason: string): void {
    if (this.#done) return;
    this.#done = true;
    this.readyState = 3;
    this.dispatchEvent(new CloseEvent("close", { code, reason }));
  }
}
