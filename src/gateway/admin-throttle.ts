import type { Env } from "../env.ts";
import { SlidingWindow, type Limit, type WindowAnswer } from "../core/limiter/index.ts";
import { LocalWindows, type Windowed } from "../core/limiter/local-windows.ts";
import type { Clock } from "./clock.ts";
import { withDeadline } from "./deadline.ts";
import type { GatewaySettings } from "./settings.ts";

/** Where a client's failures are counted: never a raw address, only its digest (as the rules' counters). */
export interface ThrottleAddress {
  readonly object: string;
  readonly key: string;
}

/** A client's standing: how long until it may try again (0: it may now). */
export interface Standing {
  readonly retryInMs: number;
}

/** What the throttle reads of the checked settings (src/gateway/settings.ts). */
export type ThrottleSettings = Pick<GatewaySettings, "region" | "counterTimeoutMs">;

/** Clients an isolate counts on its own at most (the least recently seen go first). */
export const LOCAL_CLIENTS = 10_000;

/** What a timed-out throttle call is called in its error. */
const THROTTLE = "the authentication throttle";

/**
 * An isolate's side of the admin API's throttle on failed authentication (src/admin/throttle.ts
 * has its policy: the allowance and the addresses): each failure counted in the region's counter
 * objects (COUNTERS, in the region's jurisdiction), so every isolate sees every failure, within
 * COUNTER_TIMEOUT_MS.
 *
 * While the objects do not answer, this isolate counts on its own windows. Failing open would let
 * a guesser who floods its object past its capacity try tokens unthrottled; failing closed would
 * lock every operator out whenever the counter objects fail, when the admin API is needed most.
 * Counting locally keeps both: a client gets the allowance per window in each isolate it reaches
 * (K isolates: K times as many), and a valid token still works. Nothing is reported to the object
 * afterwards: the bound holds for the outage, and the object's own count resumes after it. The
 * windows are the request path's kind (LocalWindows, which its LocalFallback builds on) under a
 * hard bound: past LOCAL_CLIENTS the least recently seen client goes, since nothing here waits to
 * be reported; `standing` reads a window without counting and opens none.
 */
export class AdminThrottle {
  readonly #clock: Clock;
  readonly #counters: () => Pick<Env["COUNTERS"], "getByName">;
  readonly #settings: ThrottleSettings;
  readonly #windows = new LocalWindows<Windowed>({ max: LOCAL_CLIENTS, open: (_client, allowance) => ({ window: new SlidingWindow(allowance) }) });
  #failing = false;

  /**
   * @param counters the region's counter objects, in its jurisdiction (inJurisdiction): reached for
   * each call, like every counter, since the digest names a client of the region
   */
  constructor(clock: Clock, counters: () => Pick<Env["COUNTERS"], "getByName">, settings: ThrottleSettings) {
    this.#clock = clock;
    this.#counters = counters;
    this.#settings = settings;
  }

  /**
   * Records one failed authentication of the client and says whether it was still within its
   * allowance: the count and the decision are one call to the object, so clients racing through
   * many isolates cannot all slip in under the limit.
   */
  async recordFailure(address: ThrottleAddress, allowance: Limit): Promise<Standing> {
    try {
      const [answer] = await withDeadline(
        this.#counters()
          .getByName(address.object)
          .decide([{ key: address.key, limit: allowance, hits: 1 }]),
        this.#settings.counterTimeoutMs,
        THROTTLE,
      );
      this.#recovered();
      const verdict = answer!.verdicts[0]!;
      return { retryInMs: verdict.allowed ? 0 : Math.max(1, verdict.retryInMs) };
    } catch (error) {
      this.#unavailable(error);
      const now = this.#clock.now();
      return standingOf(this.#windows.hit(address.key, allowance, now), now);
    }
  }

  /** Whether the client has used up its allowance, without counting anything (a valid token is no failure). */
  async standing(address: ThrottleAddress, allowance: Limit): Promise<Standing> {
    try {
      const inspection = await withDeadline(
        this.#counters().getByName(address.object).inspect({ key: address.key, limit: allowance }),
        this.#settings.counterTimeoutMs,
        THROTTLE,
      );
      this.#recovered();
      return { retryInMs: inspection.remaining > 0 ? 0 : Math.max(1, inspection.retryInMs) };
    } catch (error) {
      this.#unavailable(error);
      const now = this.#clock.now();
      return standingOf(this.#windows.peek(address.key, allowance, now), now);
    }
  }

  #unavailable(error: unknown): void {
    if (this.#failing) return;
    // Once per outage and isolate: a flood of guesses must not become a flood of log lines.
    console.log(JSON.stringify({ event: "admin_auth_throttle_unavailable", region: this.#settings.region, error: String(error), decidedBy: "local-fallback" }));
    this.#failing = true;
  }

  #recovered(): void {
    if (!this.#failing) return;
    this.#failing = false;
    console.log(JSON.stringify({ event: "admin_auth_throttle_recovered", region: this.#settings.region }));
  }
}

/** A client's standing by this isolate's own window, answered at `now`. */
function standingOf(answer: WindowAnswer, now: number): Standing {
  return { retryInMs: answer.allowed ? 0 : Math.max(1, answer.retryAt - now) };
}
