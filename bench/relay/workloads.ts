// Pure: what each measured run sends, and the identities it is sent under.
import { eventFrame, paddedCommand, smallCommand } from "./frames.ts";

export const WORKLOAD_NAMES = ["command-small", "command-8k", "events"] as const;
export type WorkloadName = (typeof WORKLOAD_NAMES)[number];

export interface Workload {
  readonly name: WorkloadName;
  readonly title: string;
  /** Which way the counted frames go. */
  readonly direction: "client->upstream" | "upstream->client";
  /** The size of one counted frame, in bytes. */
  readonly frameBytes: number;
  /** The counted frame `id` (a command) or `seq` (an event). */
  readonly frame: (n: number) => string;
}

/** Bytes of the large command and of an event frame. */
export const LARGE_COMMAND_BYTES = 8 * 1024;
export const EVENT_BYTES = 256;

export const WORKLOADS: Readonly<Record<WorkloadName, Workload>> = {
  "command-small": {
    name: "command-small",
    title: "agent.getTree commands, each answered by a success frame",
    direction: "client->upstream",
    frameBytes: smallCommand(1000).length,
    frame: smallCommand,
  },
  "command-8k": {
    name: "command-8k",
    title: "run.start commands padded to 8 KB, each answered by a success frame",
    direction: "client->upstream",
    frameBytes: LARGE_COMMAND_BYTES,
    frame: (id) => paddedCommand(id, LARGE_COMMAND_BYTES),
  },
  events: {
    name: "events",
    title: "event frames from the upstream after one subscription.subscribe",
    direction: "upstream->client",
    frameBytes: EVENT_BYTES,
    frame: (seq) => eventFrame(seq, EVENT_BYTES),
  },
};

/**
 * Frames per run of each workload, as a multiple of `--frames`: an event frame costs a few times
 * less CPU than a command and its answer, so it gets more, and no run is measured on a sliver.
 */
export const FRAME_SCALE: Readonly<Record<WorkloadName, number>> = { "command-small": 1, "command-8k": 1, events: 4 };

/** The frames one run of `workload` sends or awaits: `--frames` scaled, at least one per socket. */
export function framesFor(workload: WorkloadName, frames: number, sockets: number): number {
  return Math.max(sockets, Math.round(frames * FRAME_SCALE[workload]));
}

/**
 * The API key every frame run's sockets are opened with: the gateway is given a limit for it
 * high enough that nothing is refused (serve.ts), so its counting path is taken and never ends in
 * a refusal.
 */
export const FRAMES_KEY = "relay-bench-frames";

/**
 * The key of held socket `i`: one identity per socket, so no cap on one identity's open sockets
 * stops the bench short of the count asked for, and each upgrade is within its key's own limit.
 */
export const holdKey = (i: number): string => `relay-bench-hold-${i}`;

/**
 * `total` frames over `sockets` sockets, as even as whole frames allow (the first ones take the
 * remainder).
 */
export function splitFrames(total: number, sockets: number): number[] {
  const base = Math.floor(total / sockets);
  return Array.from({ length: sockets }, (_, i) => base + (i < total % sockets ? 1 : 0));
}
