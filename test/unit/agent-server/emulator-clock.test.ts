// The state object's clock: a run's step delay sleeps on it, and a test's `advance` wakes the
// sleepers whose time has come; for real clients the machine's time wakes them.
import { afterEach, describe, expect, it, vi } from "vitest";
import { EmulatorClock } from "../../../emulators/agent-server/system/clock.ts";

/** Whether the promise has settled, once every microtask queued so far has run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  void promise.then(() => (done = true));
  for (let i = 0; i < 10; i++) await Promise.resolve();
  return done;
}

describe("EmulatorClock.sleep", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it("wakes when the clock is moved past its time, and not before", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = new EmulatorClock();
    const sleeping = clock.sleep(60_000);
    clock.advance(59_999);
    expect(await settled(sleeping)).toBe(false);
    clock.advance(1);
    expect(await settled(sleeping)).toBe(true);
  });

  it("wakes on the machine's time when nobody moves the clock", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = new EmulatorClock();
    const sleeping = clock.sleep(500);
    vi.advanceTimersByTime(499);
    expect(await settled(sleeping)).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await settled(sleeping)).toBe(true);
  });

  it("wakes each sleeper at its own time, and at once when aborted or asked for no time", async () => {
    vi.useFakeTimers({ now: 1_000_000 });
    const clock = new EmulatorClock();
    const short = clock.sleep(1_000);
    const long = clock.sleep(5_000);
    const cancel = new AbortController();
    const cancelled = clock.sleep(5_000, cancel.signal);
    clock.advance(1_000);
    expect([await settled(short), await settled(long), await settled(cancelled)]).toEqual([true, false, false]);
    cancel.abort();
    expect(await settled(cancelled)).toBe(true);
    expect(await settled(long)).toBe(false);
    expect(await settled(clock.sleep(0))).toBe(true);
    // A sleeper woken by the clock leaves no timer behind.
    clock.advance(4_000);
    expect(await settled(long)).toBe(true);
    expect(vi.getTimerCount()).toBe(0);
  });
});
