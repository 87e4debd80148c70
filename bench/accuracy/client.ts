// The one client of a scenario: sends its requests to chosen isolates, timing each on the
// client's clock, and keeps them in the order sent (a retry names the 429 it retries by index).
import type { Observation } from "./analysis.ts";
import type { Cluster } from "./cluster.ts";
import type { Target } from "./target.ts";

/** The client's clock: wall-clock milliseconds with performance.now()'s resolution. */
export const clientNow = (): number => performance.timeOrigin + performance.now();

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, Math.max(0, ms)));
/** Never early: Node's timers may fire a fraction of a millisecond before their time, and a retry sent early may rightly be refused. */
export async function sleepUntil(at: number): Promise<void> {
  while (clientNow() < at) await sleep(Math.max(1, at - clientNow()));
}

export class Client {
  readonly observations: Observation[] = [];
  #inFlight = 0;

  readonly cluster: Cluster;
  readonly target: Target;
  /** A fresh API key per scenario and K: every scenario starts on an empty window. */
  readonly apiKey: string;

  constructor(cluster: Cluster, target: Target, apiKey: string) {
    this.cluster = cluster;
    this.target = target;
    this.apiKey = apiKey;
  }

  /** One request to isolate `isolate`; resolves to its index and observation. */
  async send(isolate: number, retry?: { of: number; clean: boolean }): Promise<{ index: number; observation: Observation }> {
    const index = this.observations.length;
    // Reserve the slot now: observations stay in the order sent.
    this.observations.push(undefined as unknown as Observation);
    this.#inFlight++;
    const sentAt = clientNow();
    let observation: Observation;
    try {
      const response = await this.cluster.fetch(isolate, this.target.path, { method: this.target.method, headers: { "x-api-key": this.apiKey } });
      await response.arrayBuffer();
      const receivedAt = clientNow();
      const retryAfter = response.headers.get("retry-after");
      observation = {
        isolate,
        sentAt,
        receivedAt,
        status: response.status,
        // Retry-After is in real seconds already (the gateway rounds its scaled wait up to whole seconds).
        ...(response.status === 429 && retryAfter !== null && { retryAfterMs: Number(retryAfter) * 1000 }),
        ...(response.headers.get("x-tollgate-counter") === "local-fallback" && { localFallback: true }),
        ...(retry && { retryOf: retry.of, cleanRetry: retry.clean }),
      };
    } catch {
      // A request that got no answer: neither admitted nor denied (status 0).
      observation = { isolate, sentAt, receivedAt: clientNow(), status: 0 };
    } finally {
      this.#inFlight--;
    }
    this.observations[index] = observation;
    return { index, observation };
  }

  /**
   * Retries the 429 at `index` exactly when its Retry-After says (its receipt + Retry-After), on
   * `isolate`. The retry is judged only if nothing is in flight and no other admission can have
   * been decided after the 429: then nobody else can have spent the room it was promised.
   */
  async retry(index: number, isolate: number): Promise<Observation | undefined> {
    const denied = this.observations[index];
    if (!denied || denied.status !== 429 || denied.retryAfterMs === undefined) return undefined;
    await sleepUntil(denied.receivedAt + denied.retryAfterMs);
    const clean = this.#inFlight === 0 && !this.observations.some((o, i) => i !== index && o.status >= 200 && o.status < 400 && o.receivedAt > denied.sentAt);
    return (await this.send(isolate, { of: index, clean })).observation;
  }
}
