import { counterAddress, SlotBook, type SlotAnswer, type SlotRenewal, type SlotTake } from "../core/limiter/index.ts";
import type { ConcurrencyRule } from "../core/rules/concurrency-rules.ts";
import { concurrencyRuleFor } from "../core/rules/concurrency.ts";
import type { RuleTable } from "../core/rules/load.ts";
import { describeMatcher } from "../core/rules/match.ts";
import type { Identity } from "../core/rules/request-facts.ts";
import type { Region } from "../core/rules/schema.ts";
import { ruleTables } from "../core/rules/tables.ts";
import type { UpstreamName } from "../core/rules/upstreams.ts";
import { sleepOn, type Clock } from "./clock.ts";
import { withDeadline } from "./deadline.ts";
import { ceilSeconds } from "./rate-limit-headers.ts";
import { slotsExhausted, slotsUnavailable } from "./slot-refusals.ts";

/** Keeps work going after the response (a request's `waitUntil`, execution-context.ts); declared here so the module typechecks outside the Workers runtime too. */
type Background = (work: Promise<unknown>) => void;

/** A request that will be held open (a WebSocket upgrade, a stream), as the request path read and classified it. */
export interface HeldRequest {
  readonly upstream: UpstreamName;
  readonly method: string;
  /** The normalized path, as classified. */
  readonly path: string;
  /** The identity its rate-limit rule counted it by: its kind picks the concurrency rule. */
  readonly identity: Pick<Identity, "kind">;
  /** That identity's digest (RegionRuntime.identityDigest): names the slots object, never the raw identity. */
  readonly digest: string;
}

/**
 * A slot held for one request held open. Its lease is renewed in the background until `release`.
 * The holder releases it when the socket closes (or the stream ends), and closes the socket when
 * `lost` resolves.
 */
export interface SlotHold {
  /** A `RateLimit-Policy` list member: `"<name>";q=<count>;qu="concurrent-requests"`. */
  readonly policy: string;
  /** A `RateLimit` list member: `"<name>";r=<slots left after this one>`. */
  readonly rateLimit: string;
  /** Who decided: the slots object, or this isolate's local book while the object failed (FAIL_MODE=open). */
  readonly decidedBy: "object" | "local-fallback";
  /** Gives the slot back, in the background; idempotent. */
  release(): void;
  /** Resolves if the slot is gone (its lease lapsed, and no slot was free to take again): the holder must close. Never rejects. */
  readonly lost: Promise<void>;
}

/** The three calls a slots object answers (src/durable-objects/slots-object.ts), as the gateway makes them. */
export interface SlotsStub {
  take(take: SlotTake): Promise<SlotAnswer>;
  renew(renewal: { slot: string; leaseMs: number }): Promise<SlotRenewal>;
  release(release: { slot: string }): Promise<boolean>;
}

export interface ConcurrencyOptions {
  readonly region: Region;
  /** "closed": a slots object that fails refuses the request (503); "open": this isolate's own book decides. */
  readonly failMode: "open" | "closed";
  /** How long a call to a slots object may take (COUNTER_TIMEOUT_MS). */
  readonly timeoutMs: number;
  /** A slot's lease (SLOT_LEASE_MS); renewed every third of it. */
  readonly leaseMs: number;
  /** Whether log lines may carry the slots object's name (settings.ts, identitiesInTelemetry). */
  readonly identitiesInTelemetry: boolean;
  readonly clock: Clock;
  /** This isolate's id: its slot ids are `<caller>:<n>`, unique across isolates. */
  readonly caller: string;
  /** The slots object named `name`, in the region's jurisdiction (objects.ts). */
  readonly slots: (name: string) => SlotsStub;
  /** The rule tables whose concurrency rows apply; the published ones by default. */
  readonly tables?: Readonly<Record<UpstreamName, RuleTable>>;
}

/** Where one hold's slot is kept: its object, or this isolate's book while the object fails. */
interface Keeper {
  readonly decidedBy: SlotHold["decidedBy"];
  take(take: SlotTake): Promise<SlotAnswer>;
  renew(renewal: { slot: string; leaseMs: number }): Promise<SlotRenewal>;
  release(release: { slot: string }): Promise<boolean>;
}

/**
 * One isolate's part of concurrency (docs/counting.md, "Concurrency"): it takes a slot on the
 * identity's slots object (one per region, concurrency rule and identity digest, exact across
 * isolates) for each request held open that a concurrency rule caps, renews the slot's lease every
 * third of it while the request is held, and gives it back when released. A slot whose holder
 * vanished lapses at its lease's end on the object, so no isolate leaks slots for longer. When the
 * object fails at take time, FAIL_MODE decides: `closed` refuses (503); `open` takes the slot in
 * this isolate's own book for the counter (at most `count` per isolate, as counting's local
 * fallback), where it stays until released.
 *
 * @example
 * const hold = await runtime.concurrency.hold({ upstream, method, path, identity, digest }, background);
 * // hold undefined: not capped. Otherwise: hold.policy / hold.rateLimit on the 101, hold.release() at close, close on hold.lost.
 */
export class Concurrency {
  readonly #options: ConcurrencyOptions;
  readonly #tables: Readonly<Record<UpstreamName, RuleTable>>;
  /** This isolate's books for counters whose object failed at take time (FAIL_MODE=open), by counter name. */
  readonly #local = new Map<string, SlotBook>();
  #taken = 0;

  constructor(options: ConcurrencyOptions) {
    this.#options = options;
    this.#tables = options.tables ?? ruleTables;
  }

  /** Slots this isolate holds in its own books (their objects failed at take time). */
  get localSlots(): number {
    let held = 0;
    for (const book of this.#local.values()) held += book.inUse(this.#options.clock.now());
    return held;
  }

  /**
   * A slot for `request` if a concurrency rule caps it, renewed in `background` until released;
   * undefined when no rule does, or when its rule is in shadow mode and every slot is held (logged).
   *
   * @throws GatewayError quota-exceeded (429, `Retry-After`, `RateLimit-Policy`, `RateLimit`) when the identity holds `count` already and the rule enforces.
   * @throws GatewayError limiter-unavailable (503) when the slots object failed and the gateway fails closed.
   */
  async hold(request: HeldRequest, background: Background | undefined): Promise<SlotHold | undefined> {
    const { region, failMode, leaseMs } = this.#options;
    const found = concurrencyRuleFor(this.#tables[request.upstream], { method: request.method, path: request.path, identity: request.identity.kind });
    if (!found) return undefined;
    const { rule, matcher, root } = found;
    const limit = rule.limits[region].count;
    const counter = counterAddress(region, rule.id, request.digest).name;
    const policy = `"${rule.name}";q=${limit};qu="concurrent-requests"`;
    const take: SlotTake = { slot: `${this.#options.caller}:${++this.#taken}`, limit, leaseMs };

    let keeper: Keeper = this.#objectKeeper(counter);
    let answer: SlotAnswer;
    try {
      answer = await keeper.take(take);
    } catch (error) {
      // The take may have landed and only its answer been lost: give that slot back rather than
      // let it count until its lease lapses.
      inBackground(background, keeper.release({ slot: take.slot }));
      this.#log({
        event: "slot_failure",
        rule,
        counter,
        error: error instanceof Error ? error.message : String(error),
        decidedBy: failMode === "closed" ? "none" : "local-fallback",
      });
      if (failMode === "closed") throw slotsUnavailable(rule, { "ratelimit-policy": policy });
      keeper = this.#localKeeper(counter);
      answer = await keeper.take(take);
    }

    if (!answer.granted) {
      const retryAfter = ceilSeconds(answer.retryInMs);
      const enforce = rule.mode === "enforce";
      this.#log({ event: enforce ? "denied" : "shadow_denied", rule, counter, decidedBy: keeper.decidedBy, remaining: 0, retryAfter, limit });
      if (!enforce) return undefined;
      const headers = { "ratelimit-policy": policy, ratelimit: `"${rule.name}";r=0` };
      throw slotsExhausted({ rule, matched: describeMatcher(matcher, root), identity: request.identity.kind, region, retryAfter }, headers);
    }

    let released = false;
    let lose!: () => void;
    const lost = new Promise<void>((resolve) => (lose = resolve));
    // Not the request's background work: the held request itself (an open socket, a streaming
    // body) keeps its context alive, and the renewals end with it; as background work they would
    // hold a finished request's context open until the socket closed.
    void this.#renewing(keeper, take, () => released, lose);
    return {
      policy,
      rateLimit: `"${rule.name}";r=${Math.max(0, limit - answer.inUse)}`,
      decidedBy: keeper.decidedBy,
      lost,
      release: () => {
        if (released) return;
        released = true;
        inBackground(
          background,
          keeper.release({ slot: take.slot }).catch(() => false),
        );
      },
    };
  }

  /**
   * Renews the slot every third of its lease until released. A renewal that finds the slot gone
   * (its lease lapsed while the object could not be reached) takes it again if a slot is free, and
   * otherwise the hold is lost. A failed renewal is tried again at the next turn: the slot stays
   * held until the object says otherwise.
   */
  async #renewing(keeper: Keeper, take: SlotTake, released: () => boolean, lose: () => void): Promise<void> {
    const every = Math.max(1, Math.floor(take.leaseMs / 3));
    for (;;) {
      await sleepOn(this.#options.clock, every, "renewal");
      if (released()) return;
      try {
        const renewal = await keeper.renew({ slot: take.slot, leaseMs: take.leaseMs });
        const kept = renewal.held || (await keeper.take(take)).granted;
        // Released while the call was out: the call may have held the slot again, so give it back again.
        if (released()) {
          await keeper.release({ slot: take.slot });
          return;
        }
        if (!kept) {
          lose();
          return;
        }
      } catch {
        // Tried again at the next turn.
      }
    }
  }

  #objectKeeper(counter: string): Keeper {
    const { timeoutMs } = this.#options;
    const stub = this.#options.slots(counter);
    const bounded = <T>(call: () => Promise<T>, what: string) => withDeadline(call(), timeoutMs, `the slots object (${what})`);
    return {
      decidedBy: "object",
      take: (take) => bounded(() => stub.take(take), "take"),
      renew: (renewal) => bounded(() => stub.renew(renewal), "renew"),
      release: (release) => bounded(() => stub.release(release), "release"),
    };
  }

  #localKeeper(counter: string): Keeper {
    const { clock } = this.#options;
    const book = (): SlotBook => {
      let found = this.#local.get(counter);
      if (!found) this.#local.set(counter, (found = new SlotBook()));
      return found;
    };
    const settle = (held: SlotBook) => {
      held.prune(clock.now());
      if (held.inUse(clock.now()) === 0) this.#local.delete(counter);
    };
    return {
      decidedBy: "local-fallback",
      take: async ({ slot, limit, leaseMs }) => {
        const { lapsed: _, ...answer } = book().take(slot, clock.now(), limit, leaseMs);
        return answer;
      },
      renew: async ({ slot, leaseMs }) => book().renew(slot, clock.now(), leaseMs),
      release: async ({ slot }) => {
        const held = book();
        const released = held.release(slot);
        settle(held);
        return released;
      },
    };
  }

  /** One log line: hashed counter names only (left out where identities may not go), never a raw key. */
  #log(line: { event: string; rule: ConcurrencyRule; counter: string; [field: string]: unknown }): void {
    const { event, rule, counter, limit, ...rest } = line;
    console.log(
      JSON.stringify({
        event,
        region: this.#options.region,
        rule: rule.id,
        counter: this.#options.identitiesInTelemetry ? counter : undefined,
        ...rest,
        ...(limit !== undefined && { limit: `${String(limit)} concurrent` }),
      }),
    );
  }
}

/**
 * The one entry the request path calls for a request it will hold open: the identity's slot under
 * the concurrency rule that caps it (Concurrency.hold), on the isolate's region runtime.
 *
 * @example
 * const hold = await holdSlot(runtime, { upstream, method, path, identity, digest }, backgroundOf(c));
 */
export function holdSlot(
  runtime: { readonly concurrency: Concurrency },
  request: HeldRequest,
  background: Background | undefined,
): Promise<SlotHold | undefined> {
  return runtime.concurrency.hold(request, background);
}

/** Work after the response: the request's `waitUntil` when it has one; otherwise left to run. */
function inBackground(background: Background | undefined, work: Promise<unknown>): void {
  const settled = work.catch(() => undefined);
  if (background) background(settled);
}
