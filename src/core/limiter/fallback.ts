import { setBounded } from "./bounded-map.ts";
import { LocalWindows, type Windowed } from "./local-windows.ts";
import { SlidingWindow } from "./sliding-window.ts";
import type { Limit, WindowAnswer } from "./types.ts";

/**
 * Admissions an isolate made on its own, as it reports them to the counter's object: an id, so
 * that a report sent twice (its first answer lost: a timeout, a cancelled request) is counted
 * once, and the age of each admission when the call was sent, so the object places them by its own
 * clock, never earlier than they were made, whatever this isolate's clock says.
 */
export interface FallbackReport {
  readonly id: string;
  readonly agesMs: readonly number[];
  /**
   * The call these admissions' requests went out in before it failed: the object may have decided
   * that call (only its answer was lost) and then replaces its own admissions for it with these.
   */
  readonly call?: string;
}

const NONE: readonly FallbackReport[] = [];

/** What the object last said of a counter, seen from this isolate's clock. */
export interface Observed {
  /** Admissions in the window after the call (`count - remaining`, the units leased included). */
  readonly used: number;
  /** When the answer arrived. */
  readonly at: number;
  /** Units this isolate was leased with it, usable until `until` (they count until then). */
  readonly leased?: { readonly units: number; readonly until: number };
}

/**
 * What an isolate does for a counter whose object fails or is overloaded: decide locally, with a
 * sliding window of the same limit, instead of admitting uncounted traffic (docs/counting.md).
 *
 * The local window starts from what the object last said: its admissions, placed at the moment it
 * said so (the latest they can have happened, so they expire no earlier than the real ones), and
 * the units it leased to this isolate, at the lease's end. So an isolate admits at most `count` per
 * window for a counter while its object is down, its lease included; across K isolates the bound
 * is K x `count` (each only knows its own admissions). Every local admission is reported to the
 * object with the calls that follow, and forgotten only once a call carrying it was answered
 * (`delivered`): a report lost with a cancelled request is sent again, and counted once.
 * The windows are LocalWindows (local-windows.ts), as the admin throttle's; the reports, and the
 * rule that a window holding admissions stays, are this class's.
 */
export class LocalFallback {
  readonly #seen = new Map<string, Observed>();
  /**
   * The counters decided locally: each one's window, its admissions not yet in a report (`open`)
   * and its reports sent (or about to be) and not yet acknowledged (`pending`).
   */
  readonly #local: LocalWindows<Local>;
  readonly #maxCounters: number;
  readonly #prefix: string;
  #seq = 0;

  /** @param options.caller this isolate's id, the prefix of its report ids */
  constructor(options: { caller?: string; maxCounters?: number } = {}) {
    this.#prefix = options.caller ?? Math.random().toString(36).slice(2, 12);
    this.#maxCounters = options.maxCounters ?? 10_000;
    this.#local = new LocalWindows<Local>({
      max: this.#maxCounters,
      open: (key, limit, now) => ({ window: this.#seeded(key, limit, now), open: [], pending: [] }),
      // A window forgotten while it holds admissions would start again empty and admit `count`
      // more in the same window (issue 32): only windows with nothing left in them make room, so
      // past the bound memory follows the counters with local admissions in the last interval.
      keep: (local, now) => !local.window.isIdle(now),
    });
  }

  /** Notes what the object answered (the seed of a later local window). */
  observe(key: string, observed: Observed): void {
    setBounded(this.#seen, key, observed, this.#maxCounters);
    // The object answers again: it is the authority once it has been told of local admissions.
    const local = this.#local.get(key);
    if (local && local.open.length === 0 && local.pending.length === 0) this.#local.delete(key);
  }

  /**
   * Decides one request locally, recording it when admitted. `call`: the call the request went out
   * in, when it did (its answer failed to come), reported with the admission.
   */
  decide(key: string, limit: Limit, now: number, call?: string): WindowAnswer {
    const local = this.#local.entry(key, limit, now);
    const answer = local.window.hit(now);
    if (answer.allowed) local.open.push({ at: now, call });
    return answer;
  }

  /**
   * The reports for `key` to send with a call sent at `now`: every one not yet acknowledged, the
   * admissions made since the last call sealed into a new one. Those already out of any window
   * are left out.
   */
  reports(key: string, limit: Limit, now: number): readonly FallbackReport[] {
    const local = this.#local.get(key);
    // Most counters never fell back: nothing to report, nothing to allocate.
    if (!local) return NONE;
    // One report per call the admissions stood in for, so the object can match each to its call.
    for (const { at, call } of local.open.splice(0)) {
      const last = local.pending.at(-1);
      if (last && !last.sealed && last.call === call) last.times.push(at);
      else local.pending.push({ id: `${this.#prefix}-${++this.#seq}`, times: [at], ...(call !== undefined && { call }) });
    }
    for (const report of local.pending) report.sealed = true;
    local.pending = local.pending.filter((r) => r.times.some((t) => t > now - limit.intervalMs));
    return local.pending.map(({ id, times, call }) => ({ id, agesMs: times.map((t) => Math.max(0, now - t)), ...(call !== undefined && { call }) }));
  }

  /** A call carrying `reports` was answered: the object has counted them. */
  delivered(key: string, reports: readonly FallbackReport[]): void {
    const local = this.#local.get(key);
    if (reports.length === 0 || !local) return;
    const ids = new Set(reports.map((r) => r.id));
    local.pending = local.pending.filter((r) => !ids.has(r.id));
  }

  /** True while `key` has a local window (its object failed and has not been told since). */
  isActive(key: string): boolean {
    return this.#local.has(key);
  }

  /** Counters this isolate is deciding locally now (their objects failed), for health and metrics. */
  get active(): number {
    return this.#local.size;
  }

  /** A new local window for `key`, holding what the object last said of it (its admissions and this isolate's lease). */
  #seeded(key: string, limit: Limit, now: number): SlidingWindow {
    const window = new SlidingWindow(limit);
    const seen = this.#seen.get(key);
    if (seen && seen.at > now - limit.intervalMs) {
      const { used, at, leased } = seen;
      const units = leased && leased.until + limit.intervalMs > now ? Math.min(leased.units, used) : 0;
      window.seed([...new Array<number>(used - units).fill(at), ...new Array<number>(units).fill(Math.max(at, leased?.until ?? at))]);
    }
    return window;
  }
}

/** One counter decided locally (LocalFallback): its window and its reports. */
interface Local extends Windowed {
  /** Local admissions not yet in a report, with the call each request went out in. */
  readonly open: { at: number; call: string | undefined }[];
  /** Reports sent (or about to be) and not yet acknowledged; a sealed one has been sent and never changes. */
  pending: { id: string; times: number[]; call?: string; sealed?: boolean }[];
}
