// Issue 32, finding 1: a GET or HEAD with a body answered 500 after its unit was spent. Every
// method with every body framing, through the gateway: never a 500, and counted as docs/rules.md
// says ("What the gateway refuses, and why"): a GET or HEAD carrying data is refused with 400
// before any counter or upstream; everything else is forwarded (GET and HEAD without a body) and
// counted once.
import { env } from "cloudflare:workers";
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import type { Env } from "../../../src/env.ts";
import { compileClassifier } from "../../../src/core/rules/classify.ts";
import { loadRuleTable } from "../../../src/core/rules/load.ts";
import { createWorker } from "../../../src/worker.ts";
import rules from "../../../rules/hosted-api.json" with { type: "json" };
import { freshIdentity, keyed } from "../support/requests.ts";
import { giveBackAtOnce, recordingLimiter, recordingUpstreams } from "../support/custom-gateway.ts";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
type Method = (typeof METHODS)[number];
const FRAMINGS = ["no body", "empty, Content-Length: 0", "body with Content-Length", "chunked body", "chunked, empty"] as const;
type Framing = (typeof FRAMINGS)[number];

const PATH = "/tollgate-test/bodies";

// The clock stands still, so no window ends between a request and the one that reads its count.
beforeAll(() => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-11-27T12:00:00Z"));
});
afterAll(() => vi.useRealTimers());

/** A stream that yields `chunks`, with no length known in advance: what a chunked body is to the Worker. */
function chunked(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

/**
 * The request a client sends with `method` and `framing`. The Fetch API builds no GET or HEAD with
 * a body, while the runtime hands the Worker such a request as the client sent it; so one is a
 * POST carrying the body, seen by the gateway with the method the client used.
 */
function clientRequest(method: Method, framing: Framing, headers: Record<string, string>): Request {
  const url = `https://gateway.test${PATH}`;
  const body =
    framing === "no body"
      ? undefined
      : framing === "empty, Content-Length: 0"
        ? ""
        : framing === "body with Content-Length"
          ? "hello"
          : framing === "chunked body"
            ? chunked(["", "hello"])
            : chunked([]);
  if (body === undefined) return new Request(url, { method, headers });
  const sent = new Request(url, {
    method: method === "GET" || method === "HEAD" ? "POST" : method,
    headers,
    body,
    ...(typeof body !== "string" && { duplex: "half" }),
  } as RequestInit);
  if (method !== "GET" && method !== "HEAD") return sent;
  return new Proxy(sent, {
    get(target, property) {
      if (property === "method") return method;
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * A gateway whose rows each admit one request per identity per 10 minutes, so a second request
 * shows whether the first was counted (OPTIONS on the address's row 1, the rest on the key's row 25).
 */
function gatewayCountingOne(overrides: Partial<Env>) {
  const table = structuredClone(rules);
  for (const row of table.rules) row.limits = { us: { count: 1, interval: 600 }, eu: { count: 1, interval: 600 } };
  const app = createWorker({ classifier: compileClassifier(loadRuleTable(table)), clock: giveBackAtOnce });
  const testEnv = { ...env, ...overrides } as Env;
  return async (request: Request) => {
    const ctx = createExecutionContext();
    const res = await app.fetch(request, testEnv, ctx);
    await waitOnExecutionContext(ctx);
    return res;
  };
}

const carriesData = (method: Method, framing: Framing) =>
  (method === "GET" || method === "HEAD") && (framing === "body with Content-Length" || framing === "chunked body");

describe("a GET or HEAD with a body", () => {
  it.each(["GET", "HEAD"] as const)(
    "%s with a body is refused with 400 {detail}, before any counter or upstream; the same key's next request is admitted",
    async (method) => {
      const upstreams = recordingUpstreams();
      const limiter = recordingLimiter();
      const send = gatewayCountingOne({ ...upstreams.bindings, COUNTERS: limiter.namespace });
      const who = freshIdentity();
      for (const framing of ["body with Content-Length", "chunked body"] as const) {
        const res = await send(clientRequest(method, framing, keyed(who, framing === "body with Content-Length" ? { "content-length": "5" } : {})));
        expect([framing, res.status]).toEqual([framing, 400]);
        if (method === "GET") expect(((await res.json()) as { detail: string }).detail).toContain("must not carry a body");
      }
      expect(limiter.calls.hits).toBe(0);
      expect(upstreams.seen).toHaveLength(0);
      // The key's one unit is still there.
      const next = await send(clientRequest(method, "no body", keyed(who)));
      expect(next.status).toBe(200);
      expect(next.headers.get("ratelimit")).toMatch(/^"default-key";r=0;/);
    },
  );
});

describe("every method with every body framing", () => {
  const cases = METHODS.flatMap((method) => FRAMINGS.map((framing) => [method, framing] as const));

  it.each(cases)("%s, %s: never a 500, counted unless refused, forwarded with the body it carried", async (method, framing) => {
    const upstreams = recordingUpstreams();
    const send = gatewayCountingOne(upstreams.bindings);
    const who = freshIdentity();
    const res = await send(clientRequest(method, framing, keyed(who)));
    expect(res.status).not.toBe(500);
    const refused = carriesData(method, framing);
    expect(res.status).toBe(refused ? 400 : 200);
    if (!refused) {
      expect(upstreams.seen).toHaveLength(1);
      const reached = upstreams.seen[0]!.request;
      expect(reached.method).toBe(method);
      const sentData = framing === "body with Content-Length" || framing === "chunked body";
      // GET and HEAD go without a body; every other method with the one it carried.
      expect(reached.body === null ? "" : await reached.text()).toBe(sentData ? "hello" : "");
    } else {
      expect(upstreams.seen).toHaveLength(0);
    }
    // One unit per key: the next request is admitted only if this one was not counted.
    const next = await send(clientRequest(method, "no body", keyed(who)));
    expect(next.status).toBe(refused ? 200 : 429);
  });
});
