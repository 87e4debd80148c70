import type { Wakeable } from "../alarms.ts";
import type { EmulatorClock } from "../system/clock.ts";
import type { CronStore } from "./cron-store.ts";
import { fireCrons } from "./firing.ts";

/** Where the emulator's own API is reached from inside the state object (the entrypoint ignores the origin). */
const SELF_ORIGIN = "https://agent-server.internal";

/**
 * The crons' claim on the state object's alarm: wake when the earliest cron is due (its time on
 * the object's clock, turned into machine time for the alarm), then start the due crons' runs
 * through the emulator's own API (`send`), exactly as a client would start them.
 */
export function cronAlarm(crons: CronStore, clock: EmulatorClock, send: (request: Request) => Promise<Response>): Wakeable {
  return {
    nextWake() {
      const due = crons.nextDue();
      return due === undefined ? undefined : clock.machineTime(due);
    },
    async wake() {
      await fireCrons(crons.claimDue(), send, SELF_ORIGIN);
    },
  };
}
