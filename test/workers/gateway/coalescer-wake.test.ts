// The Coalescer's waiting in the Workers runtime (src/core/limiter/coalescer.ts, docs/counting.md):
// requests queued behind a call follow the promise its sender settles and hold one deadline timer
// of their own. Here each request is a request of its own (its own request context), as in the
// gateway: a call to this Worker's default export (the gateway app), whose fetch this file
// replaces for the host probe.test while it runs (it runs in this isolate, so it shares this
// module's Coalescer). The pure algorithm is tested on a driven clock in test/unit/core/limiter/coalescer.test.ts.
//
// @cloudflare/vitest-plugin turns `handle_cross_request_promise_resolution` off for the runner
// (the Worker's compatibility date turns it on): these tests hold without it, and the way they
// wait holds with it too (bench/coalescer-wakeups.ts runs it in workerd at the Worker's date).
import { env, exports } from "cloudflare:workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import gateway from "../../../src/index.ts";
import { Coalescer } from "../../../src/core/limiter/index.ts";

type Item = { readonly counter: string };
type Probe = (request: Request) => Promise<Response>;

let probe: Probe | undefined;
const served = gateway.fetch;
beforeAll(() => {
  gateway.fetch = (request, ...rest) => (probe && new URL(request.url).hostname === "probe.test" ? probe(request) : served(request, ...rest));
});
afterAll(() => {
  gateway.fetch = served;
  probe = undefined;
});

/** One request of its own, to this Worker's default export (a new request context each). */
const sendProbe = (path: string) => exports.default.fetch(`https://probe.test${path}`);

/**
 * The gateway's timers, as src/gateway/counting.ts passes them, on a clock the test moves: a
 * waiting request's real timer wakes it in its own request context, and it reads a deadline as
 * passed only once the test has said so (however long the requests took to arrive).
 */
const newCoalescer = (clock: { ms: number }) =>
  new Coalescer<Item, number>({
    now: () => clock.ms,
    setTimeout: (wake, ms) => setTimeout(wake, ms),
    clearTimeout: (timer) => clearTimeout(timer as number),
    maxCallsInFlight: 4,
  });

/** A real Durable Object call that changes nothing: a counter object's read of a counter. */
const objectCall = (name: string) => env.COUNTERS.getByName(name).inspect({ limit: { count: 1, intervalMs: 1_000 } });

/** I/O of the request's own after it woke: a subrequest and a Durable Object call. */
async function ownIo(tag: string): Promise<void> {
  await (await env.HOSTED_API!.fetch(`https://echo.test/${tag}`)).text();
  await objectCall(`coalescer-wake:${tag}`);
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Coalescer in the Workers runtime", () => {
  it("300 requests queued behind one slow call on one object all complete, each doing its own I/O after it wakes, none cancelled as hung", async () => {
    const n = 300;
    const coalescer = newCoalescer({ ms: 0 }); // no deadline passes
    const object = `coalescer-wake:${crypto.randomUUID()}`;
    const batches: number[] = [];
    let arrived = 0;
    // The first call is held until every request has joined (whatever the machine's speed), so
    // all the others queue behind it; each call is a real Durable Object call. The sender waits on
    // a timer of its own request (a wait on another request's promise alone would be a hung request).
    const send = async (items: readonly Item[]) => {
      batches.push(items.length);
      const call = batches.length;
      while (arrived < n) await pause(5);
      await objectCall(object);
      return items.map(() => call);
    };
    probe = async () => {
      arrived++;
      try {
        const call = await coalescer.join(object, { counter: "c" }, 30_000, send);
        await ownIo("after-wake");
        return Response.json({ call });
      } catch (error) {
        return new Response(String(error), { status: 500 });
      }
    };
    const answers = await Promise.all(
      Array.from({ length: n }, async () => {
        const res = await sendProbe("/join");
        return `${res.status} ${await res.text()}`;
      }),
    );
    const tally = new Map<string, number>();
    for (const answer of answers) tally.set(answer, (tally.get(answer) ?? 0) + 1);
    expect(Object.fromEntries(tally)).toEqual({ '200 {"call":1}': 1, '200 {"call":2}': n - 1 });
    expect(batches).toEqual([1, n - 1]);
    expect(coalescer.size).toBe(0);
  });

  it("when the request that sent the call ahead ends mid-call (its client gone), the 100 requests queued behind it get their turn at its deadline and do their own I/O", async () => {
    const n = 100;
    // How often a queued request's own timer wakes it to read the clock, which stands still until
    // all have queued: none can find the deadline passed early, however slowly they arrive.
    const timeoutMs = 50;
    const clock = { ms: 0 };
    const coalescer = newCoalescer(clock);
    const object = `coalescer-wake:${crypto.randomUUID()}`;
    const batches: number[] = [];
    let senderSettled = false;
    let queued = 0;
    probe = async (req) => {
      if (new URL(req.url).pathname === "/leave") {
        // Sends a call that waits on a timer of this request, then answers without waiting for
        // it: the request ends, its timer with it, so the call never returns (nor fails).
        coalescer
          .join(object, { counter: "c" }, timeoutMs, async (items) => {
            batches.push(items.length);
            await pause(600_000);
            return items.map(() => 0);
          })
          .finally(() => (senderSettled = true))
          .catch(() => {});
        return new Response("left");
      }
      try {
        const joined = coalescer.join(object, { counter: "c" }, timeoutMs, async (items) => {
          batches.push(items.length);
          await objectCall(object);
          return items.map(() => batches.length);
        });
        // The last to queue moves the clock to the abandoned call's deadline.
        if (++queued === n) clock.ms += timeoutMs;
        const call = await joined;
        await ownIo("after-abandoned");
        return Response.json({ call });
      } catch (error) {
        return new Response(String(error), { status: 500 });
      }
    };
    expect(await (await sendProbe("/leave")).text()).toBe("left");
    expect(batches).toEqual([1]); // its call is in flight
    const answers = await Promise.all(
      Array.from({ length: n }, async () => {
        const res = await sendProbe("/join");
        return `${res.status} ${await res.text()}`;
      }),
    );
    expect(new Set(answers)).toEqual(new Set(['200 {"call":2}']));
    expect(batches).toEqual([1, n]);
    expect(senderSettled).toBe(false);
  });
});
