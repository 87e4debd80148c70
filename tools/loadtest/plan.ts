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
      /** ...this many at a time (all at once when it is small)... */
      readonly concurrency: number;
      /** ...spread over this long (0: at once), so it asks no more than one row may send. */
      readonly fillMs: number;
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
  /** Average requests per second over the rule's slot. */
  readonly averageRate: number;
  /** What the row asks of the target over its slot, when (what the scheduler budgets). */
  readonly load: readonly LoadSegment[];
  readonly expectedRequests: number;
}

/** A stretch of a row's slot (ms from its start) in which it sends `rate` requests per second. */
export interface LoadSegment {
  readonly fromMs: number;
  readonly toMs: number;
  readonly rate: number;
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

/** When the fill's n-th request (from 0) may go, ms after the fill starts: at once, or at the plan's pace. */
export const fillOffsetMs = (retry: { readonly fillSize: number; readonly fillMs: number }, n: number): number =>
  retry.fillMs > 0 ? (n * retry.fillMs) / retry.fillSize : 0;

/** A row's clients' stretches added up: disjoint stretches in time order, each with every client's rate in it. */
export function loadProfile(parts: readonly LoadSegment[]): LoadSegment[] {
  const live = parts.filter((g) => g.toMs > g.fromMs && g.rate > 0);
  const edges = [...new Set(live.flatMap((g) => [g.fromMs, g.toMs]))].sort((a, b) => a - b);
  const profile: LoadSegment[] = [];
  for (let i = 0; i + 1 < edges.length; i++) {
    const [fromMs, toMs] = [edges[i]!, edges[i + 1]!];
    const rate = live.reduce((sum, g) => (g.fromMs <= fromMs && toMs <= g.toMs ? sum + g.rate : sum), 0);
    const last = profile[profile.length - 1];
    if (last && last.toMs === fromMs && last.rate === rate) profile[profile.length - 1] = { ...last, toMs };
    else if (rate > 0) profile.push({ fromMs, toMs, rate });
  }
  return profile;
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
      ? { kind: "run", offsetMs: quietFirstWindow, fillSize, concurrency: fillMs === 0 ? fillSize : FILL_LANES, fillMs }
      : {
          kind: "skip",
          reason: `filling the window takes ${fillSize} requests, more than one client sends here within half a window (${Math.round(windowMs / 2)} ms)`,
        };
  const retryMs = retry.kind === "run" ? retry.offsetMs + retryPhaseMs(windowMs) : 0;

  // Separate identities run side by side; a shared counter gets the retry client first (it needs a
  // window nobody else fills), then a quiet window, then the steady and burst clients together.
  const mainOffset = sharedIdentity && retry.kind === "run" ? retryMs + windowMs : 0;
  const burstStart = mainOffset + (burstReaches ? 0 : quietFirstWindow);
  const burstOffsets = Array.from({ length: burstCount }, (_, i) => burstStart + i * spacing);
  const burstEnd = burstOffsets[burstOffsets.length - 1]! + windowMs / 3;
  const durationMs = Math.ceil(Math.max(mainOffset + steadyMs, burstEnd, retryMs));
  const expectedRequests = Math.round(steadyRate * (steadyMs / 1000)) + burstCount * burstSize + (retry.kind === "run" ? fillSize + 2 : 0);
  // What the target must answer, and when: the steady phase at its rate; a burst or a fill sent at
  // once counted as spread over the bursts' spacing (2/3 of a window: the work a window's proof
  // must absorb, which a moment's queue at the gateway delays by far less than a window), a paced
  // fill over its own time.
  const spreadMs = Math.max(1000, burstSpacing(windowMs));
  const load = loadProfile([
    { fromMs: mainOffset, toMs: mainOffset + steadyMs, rate: steadyRate },
    ...burstOffsets.map((o) => ({ fromMs: o, toMs: o + spreadMs, rate: (burstSize * 1000) / spreadMs })),
    ...(retry.kind === "run"
      ? [{ fromMs: retry.offsetMs, toMs: retry.offsetMs + Math.max(fillMs, spreadMs), rate: ((fillSize + 2) * 1000) / Math.max(fillMs, spreadMs) }]
      : []),
  ]);

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
    load,
    expectedRequests,
  };
}

/**
 * Plans every rule and places them in time under the request budget: longest rules first, each
 * at the earliest moment the budget has room for its load at every moment of its slot (a stretch
 * that alone exceeds the budget runs when nothing else sends). A row's load is not its average:
 * the steady client sends its whole rate in the first window and the slot's tail is mostly the
 * retry client waiting, so budgeting the average stacked several rows' proving windows above the
 * budget (and left stretches idle); budgeting the load keeps every moment within it.
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
    rules.map((rule, i) =>
      planRule(
        rule,
        options,
        (r * rules.length + i) * PHASES.length,
        classifierOf(rule),
        paceOf?.(rule, region) ?? { region, timeScale: options.timeScale, why: `scale ${options.timeScale}: --time-scale` },
      ),
    ),
  );
  const placed = placeRows(planned, options.budget);
  placed.sort((a, b) => regions.indexOf(a.region) - regions.indexOf(b.region) || a.rule.id - b.rule.id);
  const durationMs = Math.max(0, ...placed.map((r) => r.startMs + r.durationMs));
  return { options, rules: placed, durationMs };
}

/** Places rows in time (their `startMs`), longest first, each where the budget has room for its load. */
export function placeRows(rows: readonly RulePlan[], budget: number): RulePlan[] {
  const order = [...rows].sort(
    (a, b) => b.durationMs - a.durationMs || b.averageRate - a.averageRate || a.rule.id - b.rule.id || a.region.localeCompare(b.region),
  );
  const placed: RulePlan[] = [];
  const usage = new Usage();
  for (const rule of order) {
    const startMs = earliestStart(usage, rule, budget);
    for (const g of rule.load) usage.add(startMs + g.fromMs, startMs + g.toMs, g.rate);
    placed.push({ ...rule, startMs });
  }
  return placed;
}

/** The planned request rate over time: a step function, `rates[i]` from `times[i]` to `times[i + 1]`. */
class Usage {
  private times: number[] = [0];
  private rates: number[] = [0];

  /** Index of the step holding moment t. */
  private stepAt(t: number): number {
    let lo = 0;
    let hi = this.times.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.times[mid]! <= t) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The highest planned rate anywhere in [from, to). */
  peak(from: number, to: number): number {
    let peak = 0;
    for (let i = this.stepAt(from); i < this.times.length && this.times[i]! < to; i++) peak = Math.max(peak, this.rates[i]!);
    return peak;
  }

  /** Moments where the planned rate falls: where a later start may fit. */
  drops(): number[] {
    return this.times.filter((_, i) => i > 0 && this.rates[i]! < this.rates[i - 1]!);
  }

  add(from: number, to: number, rate: number): void {
    for (const t of [from, to]) {
      const i = this.stepAt(t);
      if (this.times[i] !== t) {
        this.times.splice(i + 1, 0, t);
        this.rates.splice(i + 1, 0, this.rates[i]!);
      }
    }
    for (let i = this.stepAt(from); i < this.times.length && this.times[i]! < to; i++) this.rates[i] = this.rates[i]! + rate;
  }
}

function fits(usage: Usage, rule: RulePlan, start: number, budget: number): boolean {
  return rule.load.every((g) => {
    const peak = usage.peak(start + g.fromMs, start + g.toMs);
    return peak + g.rate <= budget + 1e-9 || peak === 0;
  });
}

/**
 * The earliest start at which the row fits. The earliest is 0 or puts the start of one of its
 * stretches where the planned rate falls: moving it any earlier would make that stretch overlap
 * more.
 */
function earliestStart(usage: Usage, rule: RulePlan, budget: number): number {
  const candidates = [0, ...usage.drops().flatMap((t) => rule.load.map((g) => t - g.fromMs))].filter((t) => t >= 0);
  candidates.sort((a, b) => a - b);
  for (const start of candidates) if (fits(usage, rule, start, budget)) return start;
  // Unreachable: after the last drop nothing is planned, and an empty plan fits any row.
  return candidates[candidates.length - 1]!;
}

/** The identity sent from one of the machine's own addresses: the gateway sees that address. */
function withSource(identity: ClientIdentity, source: string): ClientIdentity {
  return { ...identity, localAddress: source, key: identity.key.replace(/@tool$|^ip:tool$/, (m) => m.replace("tool", source)) };
}
