/**
 * Timers on a clock the test drives, for the gateway's `Clock.sleep`: work after a response (a
 * lease given back at its end) waits until the test moves time past it and calls `fire`; a
 * request told to wait (for lent units) moves time on to its wake-up itself, as the client waits.
 * `fire` runs what is due in time order, then lets the event loop turn (the memory objects answer
 * in microtasks, so every give-back it started has landed), until nothing more is due.
 */
export function drivenTimers(time: { now: number }) {
  const timers: { at: number; wake: () => void }[] = [];
  const fire = async (): Promise<void> => {
    for (;;) {
      const due = timers.filter((timer) => timer.at <= time.now).sort((a, b) => a.at - b.at);
      if (due.length === 0) return;
      for (const timer of due) timers.splice(timers.indexOf(timer), 1);
      for (const timer of due) timer.wake();
      await new Promise((settled) => setTimeout(settled, 0));
    }
  };
  const sleep = async (ms: number, purpose: "request" | "background" | "renewal"): Promise<void> => {
    const at = time.now + ms;
    if (purpose === "request") {
      time.now = Math.max(time.now, at);
      return fire();
    }
    return new Promise<void>((wake) => timers.push({ at, wake }));
  };
  return { fire, sleep };
}
