// Pure: command-line arguments of `npm run bench:relay` to its options. Every refusal is a
// BadArgument naming the option (tools/kit/ prints it as one line).
import { BadArgument, numberOption, parseOptions, WHOLE_FROM_1 } from "../../tools/kit/args.ts";
import { FRAME_SCALE } from "./workloads.ts";

export interface RelayOptions {
  readonly rounds: number;
  /** Small commands per run; the other workloads scale it (FRAME_SCALE). */
  readonly frames: number;
  /** How many sockets are held at once, ascending: each a level the memory is read at. */
  readonly sockets: readonly number[];
  readonly before?: string;
  readonly json: boolean;
  readonly pin: boolean;
  readonly help: boolean;
}

/** The most sockets held at once: each is a file descriptor in this process and in workerd. */
export const MAX_SOCKETS = 5000;

export const USAGE = `usage: npm run bench:relay -- [--rounds N] [--frames N] [--sockets N[,N...]]
                           [--before REV] [--no-pin] [--json]

What relaying a WebSocket costs workerd, per frame and per held socket, through a bare Worker
that returns the upstream's socket (pass-through: the runtime joins the two, the baseline), a
bare Worker holding both ends in JavaScript (pair: a WebSocketPair, each message sent on) and the
gateway as built from this checkout (its agent server's event stream, with an API key the bench
gives a limit nothing reaches). Every target relays to the same stand-in upstream in its own
Miniflare, which answers each command with a success frame and streams events on subscribe.

Frames: each run opens 4 sockets, then sends on them, 16 commands unanswered per socket at most:
  command-small  --frames agent.getTree commands of about 50 bytes, each answered
  command-8k     --frames run.start commands of 8 KB, each answered
  events         --frames x ${FRAME_SCALE.events} event frames of 256 bytes from the upstream, after one subscribe
and prints workerd's CPU (every thread's time on a CPU, /proc schedstat, from before the first
frame until workerd is quiet after the last) per frame, the frames per second, and each as a
ratio to the pass-through's run of the same round.

Held sockets: each round starts every target afresh, opens --sockets sockets (each its own API
key, each answered one small command) and prints workerd's resident memory (VmRSS) per socket
over what it used before the first one, and over the pass-through's.

  --rounds N       rounds; each starts the targets afresh, reads memory, then runs every
                   workload on every target, the targets' order rotating (default 2)
  --frames N       small commands per run (default 5000)
  --sockets LIST   sockets held at once, each a level memory is read at (default 200,1000;
                   at most ${MAX_SOCKETS})
  --before REV     also run the gateway as built from commit REV (a git worktree of it with
                   this checkout's node_modules), alternating with the others
  --no-pin         leave the processes where the OS puts them (default: this process on CPU 0,
                   every workerd on the others)
  --json           print the runs and their summary as JSON on stdout instead of the tables`;

/** "200,1000" -> [200, 1000]: whole counts, sorted, each once. */
export function socketLevels(raw: string | undefined): number[] {
  if (raw === undefined) return [200, 1000];
  const levels = raw.split(",").map((part) => numberOption("sockets", part.trim(), 0, { integer: true, min: 1, max: MAX_SOCKETS }));
  return [...new Set(levels)].sort((a, b) => a - b);
}

/** @throws BadArgument naming the option it refuses */
export function parseRelayArgs(argv: readonly string[]): RelayOptions {
  const { values } = parseOptions(argv, {
    rounds: { type: "string" },
    frames: { type: "string" },
    sockets: { type: "string" },
    before: { type: "string" },
    "no-pin": { type: "boolean" },
    json: { type: "boolean" },
    help: { type: "boolean", short: "h" },
  });
  if (values.before !== undefined && values.before.trim() === "") throw new BadArgument("--before: needs a revision (a commit, branch or tag)");
  return {
    rounds: numberOption("rounds", values.rounds, 2, WHOLE_FROM_1),
    frames: numberOption("frames", values.frames, 5000, WHOLE_FROM_1),
    sockets: socketLevels(values.sockets),
    ...(values.before !== undefined && { before: values.before }),
    json: values.json ?? false,
    pin: !(values["no-pin"] ?? false),
    help: values.help ?? false,
  };
}
