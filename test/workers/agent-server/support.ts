import { env, exports } from "cloudflare:workers";
import { Client } from "@langchain/langgraph-sdk";
import { parseEvents } from "../../../emulators/shared/sse.ts";
import { checkResponse } from "../contract/agent-server.ts";
import { randomClientIp } from "../../support/callers.ts";

/** An event as a test reads it (data is whatever JSON the server sent). */
export type WireEvent = { event: string; data: any; id?: string };

/**
 * Where the tests reach the agent server. In its own project (emulator-agent-server) the test
 * Worker is the emulator, called directly; in the gateway projects (test/workers/through-gateway/)
 * it is the gateway, which (run locally, one port for every upstream) mounts the bound emulator
 * Worker at /agent-server. Paths below this URL are the agent server's own (the document's), as an
 * official client given this base URL sends them.
 */
export const THROUGH_GATEWAY = "COUNTERS" in env;
export const AGENT_SERVER_URL = THROUGH_GATEWAY ? "https://gateway.test/agent-server" : "https://agent-server.test";

/**
 * Headers that make each call its own rate-limit identity (a fresh client IP and API key), so the
 * gateway's limits never interfere with what a test is about.
 */
export function freshCaller(): Record<string, string> {
  return { "cf-connecting-ip": randomClientIp(), "x-api-key": `agent-test-${crypto.randomUUID()}` };
}

/**
 * A fetch whose every response is held to the agent-server contract (../contract/agent-server.ts) before
 * the test sees it: a response the reference document does not allow fails the test that got it.
 * `baseUrl` is where the agent server's paths start for this fetcher.
 */
export function contractChecked(fetcher: (request: Request) => Promise<Response>, baseUrl = AGENT_SERVER_URL) {
  const base = new URL(baseUrl).pathname.replace(/\/$/, "");
  return async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    if (!url.pathname.startsWith(base)) throw new Error(`${request.url} is not below the agent server's base URL ${baseUrl}`);
    const sent = request.body ? await request.clone().text() : "";
    const response = await fetcher(request);
    await checkResponse({ method: request.method, path: url.pathname.slice(base.length) + url.search, requestBody: jsonOrUndefined(sent) }, response);
    return response;
  };
}

/** The test Worker's fetch (the emulator, or the gateway in front of it), contract-checked. */
export const agentServerFetch = contractChecked((request) => exports.default.fetch(request));

export interface JsonAnswer {
  readonly status: number;
  readonly body: any;
  readonly headers: Headers;
}

type CallOptions = { body?: unknown; rawBody?: string; headers?: Record<string, string> };

/** Calls the agent-server emulator (through the gateway in the gateway projects), as a client would. */
export async function agentServer(method: string, path: string, options: CallOptions = {}): Promise<JsonAnswer> {
  const res = await send(method, path, options);
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined, headers: res.headers };
}

/**
 * A response's status, content type and whether the gateway's RateLimit header came with it, read
 * before hanging up without reading the body (a stream's headers arrive before its events).
 */
export async function headersOf(res: Response) {
  const seen = { status: res.status, type: res.headers.get("content-type"), limited: res.headers.has("ratelimit") };
  await res.body?.cancel();
  return seen;
}

/** The raw response (for streams). */
export function send(method: string, path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { ...freshCaller(), ...options.headers };
  let body: string | undefined;
  if (options.rawBody !== undefined || options.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = options.rawBody ?? JSON.stringify(options.body);
  }
  return agentServerFetch(`${AGENT_SERVER_URL}${path}`, { method, headers, body });
}

/** Reads a whole event stream. */
export async function readEvents(res: Response): Promise<WireEvent[]> {
  return parseEvents(await res.text()).events;
}

/** Streams a run on a thread and returns the response and all its events. */
export async function streamRun(threadId: string, body: Record<string, unknown>): Promise<{ res: Response; events: WireEvent[] }> {
  const res = await send("POST", `/threads/${threadId}/runs/stream`, { body });
  const events = res.headers.get("content-type")?.startsWith("text/event-stream") ? await readEvents(res) : [];
  return { res, events };
}

/** A new assistant (200 expected). */
export async function createAssistant(body: Record<string, unknown>): Promise<any> {
  const res = await agentServer("POST", "/assistants", { body });
  if (res.status !== 200) throw new Error(`create assistant: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A new thread (200 expected). */
export async function createThread(body: Record<string, unknown> = {}): Promise<any> {
  const res = await agentServer("POST", "/threads", { body });
  if (res.status !== 200) throw new Error(`create thread: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The text of the last assistant message in a list of messages. */
export const lastReply = (messages: ReadonlyArray<{ type: string; content: string }>) => messages.findLast((m) => m.type === "ai")?.content;

/** A metadata tag unique to one test, so searches see only that test's assistants. */
export const freshTag = () => ({ test_tag: crypto.randomUUID() });

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
export const TIMESTAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/;
/** The default assistant of graph "agent": uuid5(NAMESPACE_URL, "agent"). */
export const AGENT_DEFAULT_ID = "fe096781-5601-53d2-b2f6-0d3403f7e9ca";

function jsonOrUndefined(text: string): unknown {
  try {
    return text === "" ? undefined : JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The official JS client (@langchain/langgraph-sdk) given the agent server's base URL, as a client
 * developer configures it; every request has its own client IP (for the gateway, when there is
 * one in front) and is held to the reference document. `wrap` sees each request with its answer
 * and may hand the client another answer.
 */
export function officialClient(wrap: (request: Request, response: Response) => Response = (_, response) => response): Client {
  return new Client({
    apiUrl: AGENT_SERVER_URL,
    apiKey: `sdk-${crypto.randomUUID()}`,
    callerOptions: {
      maxRetries: 0,
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const headers = new Headers(init?.headers);
        headers.set("cf-connecting-ip", freshCaller()["cf-connecting-ip"]!);
        const request = new Request(input, { ...init, headers });
        return wrap(request, await agentServerFetch(request));
      },
    },
  });
}
