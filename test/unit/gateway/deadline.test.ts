// The one call timeout (src/gateway/deadline.ts) every Durable Object call, the data center's cache
// and the upstream call go through: its answer when the call wins, its error when the deadline does,
// and no timer left behind either way. Fake timers: nothing here waits on the machine.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { DeadlineExceeded, withDeadline } from "../../../src/gateway/deadline.ts";
import { inJurisdiction } from "../../../src/gateway/objects.ts";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

/** A promise the test settles itself. */
function pending<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe("withDeadline", () => {
  it("answers the call's value when it comes first, and clears its timer", async () => {
    const call = pending<string>();
    const answer = withDeadline(call.promise, 1_000, "the counter");
    expect(vi.getTimerCount()).toBe(1);
    call.resolve("decided");
    await expect(answer).resolves.toBe("decided");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("passes the call's own failure on, and clears its timer", async () => {
    const call = pending<string>();
    const answer = withDeadline(call.promise, 1_000, "the counter");
    call.reject(new Error("object exploded"));
    await expect(answer).rejects.toThrow("object exploded");
    expect(vi.getTimerCount()).toBe(0);
  });

  it("rejects with DeadlineExceeded naming what did not answer once the time is up, not a millisecond before", async () => {
    const call = pending<string>();
    const answer = withDeadline(call.promise, 1_000, "the overrides store");
    const settled = vi.fn();
    answer.then(settled, settled);
    await vi.advanceTimersByTimeAsync(999);
    expect(settled).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    const error = settled.mock.calls[0]![0] as Error;
    expect(error).toBeInstanceOf(DeadlineExceeded);
    expect(error.message).toBe("the overrides store did not answer within 1000 ms");
    // A late answer changes nothing.
    call.resolve("late");
    await expect(answer).rejects.toBe(error);
  });

  it("makes the caller's error only when the deadline passes, when given a function that makes it", async () => {
    const make = vi.fn(() => new RangeError("the counter did not answer"));
    const answered = pending<string>();
    const first = withDeadline(answered.promise, 1_000, make);
    answered.resolve("decided");
    await expect(first).resolves.toBe("decided");
    expect(make).not.toHaveBeenCalled();
    const second = withDeadline(pending<string>().promise, 1_000, make);
    const outcome = second.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(make).toHaveBeenCalledTimes(1);
    expect(await outcome).toBe(make.mock.results[0]!.value);
  });

  it("rejects with the caller's own error, then runs onExpire (the race is already the timeout's)", async () => {
    const timedOut = new Error("the upstream did not answer in time");
    const cut = new AbortController();
    const call = new Promise<string>((_, reject) => cut.signal.addEventListener("abort", () => reject(new Error("aborted"))));
    const answer = withDeadline(call, 30_000, timedOut, () => cut.abort(timedOut));
    const outcome = answer.catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(30_000);
    expect(await outcome).toBe(timedOut);
    expect(cut.signal.aborted).toBe(true);
  });
});

describe("inJurisdiction", () => {
  /** A namespace that says which jurisdiction it was narrowed to. */
  interface Named {
    readonly name: string;
    jurisdiction(j: string): Named;
  }
  const namespace = (name = "as bound"): Named => ({ name, jurisdiction: (j) => namespace(j) });
  const reached = (jurisdiction: "us" | "eu" | undefined) => inJurisdiction(namespace(), jurisdiction).name;

  it("narrows to the region's jurisdiction, and leaves the binding as it is without one", () => {
    expect(reached("eu")).toBe("eu");
    expect(reached("us")).toBe("us");
    expect(reached(undefined)).toBe("as bound");
  });
});
