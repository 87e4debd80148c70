// Pure: what traffic each rule gets, and when. Every figure comes from the rule (its limit in the
// region) and the options, so a plan can be printed, tested and reproduced without a gateway.
import type { Classifier } from "../../src/core/rules/classify.ts";
import type { Rule } from "../../src/core/rules/load.ts";
import type { Region } from "../../src/core/rules/schema.ts";
import { sampleRequest, type SampleRequest } from "../../src/core/rules/sample-request.ts";
import { tableOfRule } from "../../src/core/rules/tables.ts";
import { localPathFor } from "../../src/gateway/routes.ts";
import type { RowPace } from "./pacing.ts";
import { assertMeetsRule, clientIdentity, PHASES, type ClientIdentity, type Phase } from "./traffic.ts";

export interface PlanOptions {
  /** Whose limits, when `regions` does not list several. */
  readonly region: Region;
  /** Every region to test, each row in each (default: `region` alone). */
  readonly regions?: readonly Region[];
  /** Every interval is divided by this (the gateway's TIME_SCALE), unless a row's pace says otherwise. */
  readonly timeScale: number;
  /** The steady client offers this multiple of the limit's rate (count per window). */
  readonly load: number;
  /** The steady phase covers at least this many windows... */
  readonly windows: number;
  /** ...and at least this many seconds. */
  readonly minPhaseS: number;
  /** Requests per second the whole run may offer (the machine's capacity, not the gateway's). */
  readonly budget: number;
  /** Most requests per second one steady client offers (one counter object serializes them). */
  readonly ruleRateCap: number;
  /** A burst is this multiple of `count` (at least count + 2)... */
  readonly burstFactor: number;
  /** ...and at most this many requests. */
  readonly burstCap: number;
  /** False against a deployed gateway: CF-Connecting-IP is the tool's own address. */
  readonly varyIp: boolean;
  /** Keeps identities unique across runs against the same gateway. */
  readonly runId: string;
  /**
   * The client addresses the tool may send from (--source-ips), when it cannot set the client IP
   * itself: with three or more, each client of an IP-keyed row has an address, so a counter, of its own.
   */
  readonly sourceIps?: readonly string[];
}

/** A row's scale in one region, and why (pacing.ts). */
export interface RegionPace extends Pick<RowPace, "timeScale" | "why"> {
  readonly region: Region;
  /** The row's own --load, when its pace gives it one. */
  readonly load?: number;
}

export interface BurstPlan {
  /** Requests per burst, all sent at once. */
  readonly size: number;
  /** Offsets from the rule's start. Spaced 2/3 of a window: see `burstSpacing`. */
  readonly offsetsMs: readonly number[];
}

export type RetryPlan =
  | {
      readonly kind: "run";
      readonly offsetMs: number;
      /** Requests sent to fill the window before the probe... */
      readonly fillSize: number;
      /** ...this many at a time (all at once when it is small). */
      readonly concurrency: number;
    }
  | { readonly kind: "skip"; readonly reason: string };

export interface RulePlan {
  readonly rule: Rule;
  /** "us:12": the row in its region, unique in a run. */
  readonly key: string;
  readonly region: Region;
  /** The row's own time scale: its gateway's TIME_SCALE. */
  readonly timeScale: number;
  /** Why this scale, in one line (pacing.ts). */
  readonly scaleWhy: string;
  readonly request: SampleRequest;
  readonly count: number;
  /** The published interval (seconds). */
  readonly intervalS: number;
  /** The interval the gateway applies, in real milliseconds (interval / time scale). */
  readonly windowMs: number;
  /** load x count per window, per second. */
  readonly intendedRate: number;
  /** What the steady client actually offers (capped at what the machine can send). */
  readonly steadyRate: number;
  /** From the start of the run. */
  readonly startMs: number;
  readonly durationMs: number;
  readonly steady: { readonly offsetMs: number; readonly durationMs: number; readonly rate: number };
  readonly bursts: BurstPlan;
  readonly retry: RetryPlan;
  readonly identities: Readonly<Record<Phase, ClientIdentity>>;
  /** True when all phases count on one counter (an IP rule against a deployed gateway). */
  readonly sharedIdentity: boolean;
  /** Average requests per second over the rule's slot (what the scheduler budgets). */
  readonly averageRate: number;
  readonly expectedRequests: number;
}

export interface Plan {
  readonly options: PlanOptions;
  readonly rules: readonly RulePlan[];
  readonly durationMs: number;
}

/**
 * Bursts are 2/3 of a window apart. A correct sliding window admits every other burst (the first
 * burst's admissions block the second, have expired by the third). A fixed-window counter admits
 * the first burst after each of its boundaries; with bursts 2/3 W apart those admitted bursts are
 * either 2/3 W or 4/3 W apart, and at least every second gap is the short one, so within four
 * bursts (2 W) two full bursts land inside one window, whatever the counter's phase.
 */
export const burstSpacing = (windowMs: number): number => (2 * windowMs) / 3;

/** Enough bursts for the argument above (four), plus one. */
const BURSTS = 5;
/** Bursts that cannot exceed count test concurrency on a busy counter only: one is enough. */
const FUTILE_BURSTS = 1;
/** Requests in flight while a large fill goes as fast as the gateway answers. */
const FILL_LANES = 32;

/** The real time a retry client may need: fill, probe, Retry-After (whole seconds, >= 1), retry. */
function retryPhaseMs(windowMs: number): number {
  return windowMs + Math.max(1, Math.ceil(windowMs / 1000)) * 1000 + 1000;
}

/** The key of a row in a region, as plans and results name it. */
export const rowKey = (region: Region, ruleId: number): string => `${region}:${ruleId}`;

/** Plans one rule's clients in one region (not yet placed in time: `startMs` is 0). */
export function planRule(rule: Rule, options: PlanOptions, ipBase: number, classifier?: Classifier, pace?: RegionPace): RulePlan {
  const region = pace?.region ?? options.region;
  const timeScale = pace?.timeScale ?? options.timeScale;
  const { count, interval } = rule.limits[region];
  const windowMs = (interval * 1000) / timeScale;
  const intendedRate = ((pace?.load ?? options.load) * count) / (windowMs / 1000);
  const steadyRate = Math.min(intendedRate, options.ruleRateCap);
  // The sample is a path of the rule's own upstream; the traffic reaches it through its local
  // mount (npm start and the tool's own gateway serve every upstream on one port).
  const own = sampleRequest(rule);
  const request = { method: own.method, path: localPathFor(tableOfRule(rule.id) ?? "hosted-api", own.path) };
  // Without a client IP of its own per client, an IP-keyed row's clients share one counter.
  const addresses = options.sourceIps ?? [];
  const ownAddresses = !options.varyIp && addresses.length >= PHASES.length;
  const sharedIdentity = !options.varyIp && !ownAddresses && rule.identity === "ip";
  const runId = (options.regions?.length ?? 1) > 1 ? `${options.runId}-${region}` : options.runId;
  const identities = Object.fromEntries(
    PHASES.map((phase, i) => {
      const identity = clientIdentity(rule, phase, runId, options.varyIp, ipBase + i);
      const source = ownAddresses ? addresses[i] : addresses[0];
      return [phase, source === undefined ? identity : withSource(identity, source)];
    }),
  ) as Record<Phase, ClientIdentity>;
  if (classifier) for (const phase of PHASES) assertMeetsRule(classifier, rule, own, identities[phase]);

  const steadyMs = Math.max(options.windows * windowMs, options.minPhaseS * 1000);
  const burstSize = Math.min(Math.max(Math.ceil(options.burstFactor * count), count + 2), options.burstCap);
  // A burst that cannot exceed count cannot reach the limit: a few, spaced so they do not pile up.
  const burstReaches = burstSize > count;
  const spacing = burstReaches ? burstSpacing(windowMs) : Math.max(burstSpacing(windowMs), (burstSize / options.ruleRateCap) * 1000);
  const burstCount = burstReaches ? BURSTS : FUTILE_BURSTS;
  const fillSize = count + 2;
  // The window must be full when the probe goes: the fill goes at once when it is small, else as
  // fast as one client may send, which must take well under a window.
  const fillMs = fillSize <= options.burstCap ? 0 : (fillSize / options.ruleRateCap) * 1000;
  // The steady client's first window is the one that proves the row full (a fresh counter filled
  // at the offered rate); the row's own fill and a burst that cannot reach the limit go after it,
  // so their requests, all at once or as fast as the gateway answers, do not slow its answers.
  const ownCounters = !sharedIdentity;
  const quietFirstWindow = ownCounters ? windowMs : 0;
  const retry: RetryPlan =
    fillMs <= windowMs / 2
      ? { kind: "run", offsetMs: quietFirstWindow, fillSize, concurrency: fillMs === 0 ? fillSize : FILL_LANES }
      : { kind: "skip", reason: `filling the window takes ${fillSize} requests, more than one client sends here within half a window (${Math.round(windowMs / 2)} ms)` };
  const retryMs = retry.kind === "run" ? retry.offsetMs + retryPhaseMs(windowMs) : 0;

  // Separate identities run side by side; a shared counter gets the retry client first (it needs a
  // window nobody else fills), then a quiet window, then the steady and burst clients together.
  const mainOffset = sharedIdentity && retry.kind === "run" ? retryMs + windowMs : 0;
  const burstStart = mainOffset + (burstReaches ? 0 : quietFirstWindow);
  const burstOffsets = Array.from({ length: burstCount }, (_, i) => burstStart + i * spacing);
  const burstEnd = burstOffsets[burstOffsets.length - 1]! + windowMs / 3;
  const durationMs = Math.ceil(Math.max(mainOffset + steadyMs, burstEnd, retryMs));
  const expectedRequests = Math.round(steadyRate * (steadyMs / 1000)) + burstCount * burstSize + (retry.kind === "run" ? fillSize + 2 : 0);

  return {
    rule,
    key: rowKey(region, rule.id),
    region,
    timeScale,
    scaleWhy: pace?.why ?? `scale ${timeScale}: --time-scale`,
    request,
    count,
    intervalS: interval,
    windowMs,
    intendedRate,
    steadyRate,
    startMs: 0,
    durationMs,
    steady: { offsetMs: mainOffset, durationMs: steadyMs, rate: steadyRate },
    bursts: { size: burstSize, offsetsMs: burstOffsets },
    retry,
    identities,
    sharedIdentity,
    averageRate: expectedRequests / (durationMs / 1000),
    expectedRequests,
  };
}

/**
 * Plans every rule and places them in time under the request budget: longest rules first, each
 * at the earliest moment the budget has room for its average rate over its whole slot (a rule
 * that alone exceeds the budget runs when nothing else does). The longest rule usually sets the
 * total time; the many short-window rules fit beside it.
 */
export function planRun(
  rules: readonly Rule[],
  options: PlanOptions,
  classifier?: Classifier | ((rule: Rule) => Classifier),
  paceOf?: (rule: Rule, region: Region) => RegionPace,
): Plan {
  const classifierOf = typeof classifier === "function" ? classifier : () => classifier;
  const regions = options.regions ?? [options.region];
  const planned = regions.flatMap((region, r) =>
    rules.map((rule, i) => planRule(rule, options, (r * rules.length + i) * PHASES.length, classifierOf(rule), paceOf?.(rule, region) ?? { region, timeScale: options.timeScale, why: `scale ${options.timeScale}: --time-scale` })),
  );
  const order = [...planned].sort((a, b) => b.durationMs - a.durationMs || b.averageRate - a.averageRate || a.rule.id - b.rule.id || a.region.localeCompare(b.region));
  const placed: RulePlan[] = [];
  for (const rule of order) {
    const startMs = earliestStart(placed, rule, options.budget);
    placed.push({ ...rule, startMs });
  }
  placed.sort((a, b) => regions.indexOf(a.region) - regions.indexOf(b.region) || a.rule.id - b.rule.id);
  const durationMs = Math.max(0, ...placed.map((r) => r.startMs + r.durationMs));
  return { options, rules: placed, durationMs };
}

function usageAt(placed: readonly RulePlan[], t: number): number {
  let sum = 0;
  for (const p of placed) if (p.startMs <= t && t < p.startMs + p.durationMs) sum += p.averageRate;
  return sum;
}

function earliestStart(placed: readonly RulePlan[], rule: RulePlan, budget: number): number {
  const candidates = [0, ...placed.map((p) => p.startMs + p.durationMs)].sort((a, b) => a - b);
  for (const start of candidates) {
    const end = start + rule.durationMs;
    // Usage is piecewise constant; it can only rise at a slot's start.
    const points = [start, ...placed.map((p) => p.startMs).filter((s) => s > start && s < end)];
    const peak = Math.max(...points.map((t) => usageAt(placed, t)));
    if (peak + rule.averageRate <= budget || peak === 0) return start;
  }
  return candidates[candidates.length - 1]!;
}

/** The identity sent from one of the machine's own addresses: the gateway sees that address. */
function withSource(identity: ClientIdentity, source: string): ClientIdentity {
  return { ...identity, localAddress: source, key: identity.key.replace(/@tool$|^ip:tool$/, (m) => m.replace("tool", source)) };
}
