// Sends a plan's traffic with undici and records every answer with the tool's own send and
// receive times. Open loop: the steady clients send on schedule whatever the gateway's latency,
// up to a cap of requests in flight per client (beyond it a due request is skipped and counted,
// so the offered rate is reported as it really was). Each client has connections of its own, as
// many as it may have in flight: a request never waits in the tool behind another row's (see
// clientConnections).
import { Pool } from "undici";
import { isAdmitted, type Answer } from "./answer.ts";
import { parsePolicy, parseRateLimit } from "./headers.ts";
import { fillOffsetMs, type Plan, type RulePlan } from "./plan.ts";
import { retryPromise } from "./retry.ts";
import type { ClientIdentity, Phase } from "./traffic.ts";

export interface RunnerOptions {
  /** The gateway serving a row (local runs: one per region and time scale). */
  readonly baseUrlOf: (rule: RulePlan) => URL;
  readonly plan: Plan;
  /** Requests per connection in flight (1: answers are never held behind others). */
  readonly pipelining: number;
}

export interface RuleProgress {
  /** The row in its region (RulePlan.key). */
  readonly key: string;
  readonly id: number;
  readonly name: string;
  sent: number;
  admitted: number;
  denied: number;
  errors: number;
  /** Steady sends skipped: the client already had its cap of requests in flight. */
  skipped: number;
  /** The rule's slot, ms since the traffic started. */
  readonly startMs: number;
  readonly endMs: number;
}

export interface Progress {
  readonly totalMs: number;
  /** Milliseconds since the traffic started. */
  readonly elapsedMs: number;
  sent: number;
  admitted: number;
  denied: number;
  errors: number;
  inFlight: number;
  readonly rules: RuleProgress[];
}

export interface Execution {
  readonly progress: Progress;
  /** Resolves with every row's answers, by RulePlan.key, once all traffic is done. */
  readonly done: Promise<Map<string, Answer[]>>;
}

/**
 * Up to a quarter of a window (at least half a second) of the steady rate may wait for answers,
 * at least 4, at most 2048: answers that slow still prove a window full, and a loaded gateway's
 * slow answers must not silently thin the offered rate below the limit's.
 */
export const steadyInFlightCap = (rule: RulePlan): number => Math.min(2048, Math.max(4, Math.ceil(rule.steady.rate * Math.max(0.5, rule.windowMs / 4000))));

/** The client an answer's request came from. */
const phaseOf = (kind: Answer["kind"]): Phase => (kind === "fill" || kind === "probe" ? "retry" : kind);

/** A steady client keeps this many seconds of its rate on the wire at most (at least 4 requests). */
export const STEADY_WIRE_S = 1;

/**
 * A client's connections, its own, as independent clients have: a burst's size and the fill's
 * lanes, so they go out at once; the steady client a second of its rate (up to its in-flight cap),
 * so it keeps its rate while answers take up to a second. A pool per gateway passes at most
 * connections / latency requests per second, and busy rows sharing one queued in the tool behind
 * each other's requests, hit the in-flight cap and proved fewer than count in a window while a row
 * alone on another gateway of the same workerd held (docs/loadtest.md, "Why rows stopped short").
 * Bounded, not as many as may be in flight: on an overloaded machine thousands of connections
 * drove answers past the headers timeout and the gateway's socket refused connections, errors
 * where a bounded client waits, and its row is unjudged with the reason. Connections open only as
 * needed.
 */
export function clientConnections(rule: RulePlan, phase: Phase, steadyCap: number): number {
  if (phase === "steady") return Math.min(steadyCap, Math.max(4, Math.ceil(rule.steady.rate * STEADY_WIRE_S)));
  if (phase === "burst") return Math.max(1, rule.bursts.size);
  return rule.retry.kind === "run" ? Math.max(1, rule.retry.concurrency) : 1;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));

interface Stream {
  readonly rule: RulePlan;
  readonly prefix: string;
  readonly origin: string;
  readonly progress: RuleProgress;
  readonly answers: Answer[];
  /** Next steady send, ms since the run started. */
  nextAt: number;
  slot: number;
  readonly endAt: number;
  readonly intervalMs: number;
  readonly maxInFlight: number;
  inFlight: number;
  bursts: number[];
}

/** Starts sending `plan`'s traffic at once; `progress` is updated live. */
export function executePlan(options: RunnerOptions): Execution {
  const { plan } = options;
  // One pool per client of each row (its own source address with it, when it has one).
  const pools = new Map<string, Pool>();
  const poolFor = (stream: Stream, phase: Phase, localAddress: string | undefined): Pool => {
    const key = `${stream.rule.key} ${phase}`;
    let pool = pools.get(key);
    if (!pool) {
      pool = new Pool(stream.origin, {
        connections: clientConnections(stream.rule, phase, stream.maxInFlight),
        pipelining: options.pipelining,
        // A row's clients fall idle when it ends: their sockets go soon after, not at the run's end.
        keepAliveTimeout: 4_000,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
        ...(localAddress ? { localAddress } : {}),
      });
      pools.set(key, pool);
    }
    return pool;
  };
  const t0 = performance.now();
  const now = () => performance.now() - t0;
  let finishedAt: number | undefined;
  const progress: Progress = {
    totalMs: plan.durationMs,
    get elapsedMs() {
      return finishedAt ?? now();
    },
    sent: 0,
    admitted: 0,
    denied: 0,
    errors: 0,
    inFlight: 0,
    rules: plan.rules.map((r) => ({
      key: r.key,
      id: r.rule.id,
      name: r.rule.name,
      sent: 0,
      admitted: 0,
      denied: 0,
      errors: 0,
      skipped: 0,
      startMs: r.startMs,
      endMs: r.startMs + r.durationMs,
    })),
  };

  function send(stream: Stream, kind: Answer["kind"], identity: ClientIdentity): Promise<Answer> {
    const { rule } = stream;
    const sendMs = now();
    progress.sent++;
    progress.inFlight++;
    stream.progress.sent++;
    const record = (answer: Answer): Answer => {
      progress.inFlight--;
      stream.answers.push(answer);
      if (answer.error !== undefined) {
        progress.errors++;
        stream.progress.errors++;
      }
      if (answer.status === 429) {
        progress.denied++;
        stream.progress.denied++;
      } else if (isAdmitted(answer)) {
        progress.admitted++;
        stream.progress.admitted++;
      }
      return answer;
    };
    return poolFor(stream, phaseOf(kind), identity.localAddress)
      .request({ method: rule.request.method, path: stream.prefix + rule.request.path, headers: { ...identity.headers, "user-agent": "tollgate-loadtest" } })
      .then(async (res) => {
        const recvMs = now();
        const header = (name: string) => {
          const v = res.headers[name];
          return Array.isArray(v) ? v.join(", ") : v;
        };
        let error = checkAnswer(rule, res.statusCode, header, rule.timeScale);
        if (res.statusCode < 200 || res.statusCode >= 500) {
          const text = (await res.body.text().catch(() => "")).slice(0, 160);
          error = `status ${res.statusCode}${text ? ` ${text}` : ""}`;
        } else {
          await res.body.dump().catch(() => undefined);
        }
        const rateLimit = parseRateLimit(header("ratelimit"));
        const retryAfter = header("retry-after");
        return record({
          kind,
          identity: identity.key,
          sendMs,
          recvMs,
          status: res.statusCode,
          ...(rateLimit ? { remaining: rateLimit.remaining } : {}),
          ...(retryAfter !== undefined && /^\d+$/.test(retryAfter) ? { retryAfterS: Number(retryAfter) } : {}),
          ...(error ? { error } : {}),
        });
      })
      .catch((err: unknown) => {
        const e = err as { code?: string; message?: string };
        return record({ kind, identity: identity.key, sendMs, recvMs: now(), status: 0, error: `network: ${e.code ?? e.message ?? String(err)}` });
      });
  }

  const streams: Stream[] = plan.rules.map((rule, i) => {
    const intervalMs = rule.steady.rate > 0 ? 1000 / rule.steady.rate : Infinity;
    const start = rule.startMs + rule.steady.offsetMs;
    const baseUrl = options.baseUrlOf(rule);
    return {
      rule,
      prefix: baseUrl.pathname.replace(/\/+$/, ""),
      origin: baseUrl.origin,
      progress: progress.rules[i]!,
      answers: [],
      nextAt: start + Math.random() * intervalMs,
      slot: 0,
      endAt: start + rule.steady.durationMs,
      intervalMs,
      maxInFlight: steadyInFlightCap(rule),
      inFlight: 0,
      bursts: rule.bursts.offsetsMs.map((o) => rule.startMs + o),
    };
  });

  const pending = new Set<Promise<unknown>>();
  const track = (p: Promise<unknown>) => {
    pending.add(p);
    void p.finally(() => pending.delete(p));
  };

  // The retry client: fill the window, get a refusal, wait its Retry-After, retry once.
  async function retryClient(stream: Stream): Promise<void> {
    const { rule } = stream;
    if (rule.retry.kind !== "run") return;
    await sleep(rule.startMs + rule.retry.offsetMs - now());
    const who = rule.identities.retry;
    // At once when small; otherwise a few lanes, none sooner than the plan's pace (its fillMs:
    // what the plan budgeted, so the fill does not crowd other rows' windows).
    const fillStart = now();
    const fill = rule.retry;
    let left = fill.fillSize;
    const lane = async () => {
      while (left > 0) {
        const n = fill.fillSize - left--;
        if (fill.fillMs > 0) await sleep(fillStart + fillOffsetMs(fill, n) - now());
        await send(stream, "fill", who);
      }
    };
    await Promise.all(Array.from({ length: Math.min(left, rule.retry.concurrency) }, lane));
    // A refusal from the fill is a promise when the fill fitted in one window of a fresh counter
    // (see retryPromise); otherwise probe one request at a time, each sent after every earlier
    // answer arrived, until one is refused: that refusal was decided after every admission.
    let probe = rule.sharedIdentity
      ? undefined
      : retryPromise(
          stream.answers.filter((a) => a.identity === who.key),
          rule.windowMs,
        );
    for (let i = 0; !probe && i < rule.count + 2; i++) {
      const answer = await send(stream, "probe", who);
      if (!isAdmitted(answer)) probe = answer;
    }
    if (!probe || probe.status !== 429 || probe.retryAfterS === undefined) return;
    await sleep(probe.recvMs + probe.retryAfterS * 1000 - now());
    await send(stream, "retry", who);
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  let finishTick: () => void = () => undefined;
  const ticking = new Promise<void>((resolve) => (finishTick = resolve));

  function tick(): void {
    const at = now();
    let next = Infinity;
    let live = false;
    for (const s of streams) {
      while (s.bursts.length > 0 && s.bursts[0]! <= at) {
        s.bursts.shift();
        for (let i = 0; i < s.rule.bursts.size; i++) track(send(s, "burst", s.rule.identities.burst));
      }
      while (s.nextAt <= at && s.nextAt < s.endAt) {
        if (s.inFlight >= s.maxInFlight) s.progress.skipped++;
        else {
          s.inFlight++;
          track(send(s, "steady", s.rule.identities.steady).finally(() => s.inFlight--));
        }
        // One request at a random moment of each 1/rate slot: the mean rate is exact and the
        // phase against any counter boundary keeps changing.
        s.slot++;
        s.nextAt = s.rule.startMs + s.rule.steady.offsetMs + (s.slot + Math.random()) * s.intervalMs;
      }
      if (s.nextAt < s.endAt) next = Math.min(next, s.nextAt);
      if (s.bursts.length > 0) next = Math.min(next, s.bursts[0]!);
      if (s.nextAt < s.endAt || s.bursts.length > 0) live = true;
    }
    if (!live) {
      finishTick();
      return;
    }
    timer = setTimeout(tick, Math.max(0, Math.min(next - now(), 100)));
  }

  const done = (async () => {
    const retries = streams.map((s) => retryClient(s));
    tick();
    await ticking;
    await Promise.all(retries);
    while (pending.size > 0) await Promise.all(pending);
    if (timer) clearTimeout(timer);
    finishedAt = now();
    await Promise.all([...pools.values()].map((p) => p.close()));
    return new Map(streams.map((s) => [s.rule.key, s.answers]));
  })();

  return { progress, done };
}

/** Why an answer is wrong for the rule it was sent for, if it is. */
export function checkAnswer(rule: RulePlan, status: number, header: (name: string) => string | undefined, timeScale: number): string | undefined {
  const scale = header("x-tollgate-time-scale");
  const reported = scale === undefined ? 1 : Number(scale);
  if (reported !== timeScale) return `time scale: the gateway applies ${scale ?? "none (1)"}, the tool assumed ${timeScale}`;
  if (status < 200 || status >= 500) return undefined; // reported with the body by the caller
  const policy = parsePolicy(header("ratelimit-policy"));
  if (!policy) return "no RateLimit-Policy header";
  if (policy.name !== rule.rule.name) return `met rule "${policy.name}", not "${rule.rule.name}"`;
  if (policy.quota !== rule.count || policy.window !== rule.intervalS) {
    return `policy q=${policy.quota};w=${policy.window}, the table says ${rule.count}/${rule.intervalS} s (wrong --region?)`;
  }
  if (!parseRateLimit(header("ratelimit")))
    return status === 429 ? "429 without a RateLimit header" : "admitted without a RateLimit header (the counter failed open)";
  if (status === 429 && !/^\d+$/.test(header("retry-after") ?? "")) return "429 without a Retry-After in seconds";
  return undefined;
}
