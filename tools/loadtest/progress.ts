// The live display while a run goes (cli-progress, on stderr): one bar for the whole run and, on
// a terminal, one per rule whose traffic is running.
import cliProgress from "cli-progress";
import { runLine } from "./live-rate.ts";
import type { Plan } from "./plan.ts";
import type { Progress, RuleProgress } from "./runner.ts";

const MAX_RULE_BARS = 10;
/** Like the summary, the live lines fit 100 columns: a 20-column bar and up to 79 of text. */
const BAR_SIZE = 20;

export interface Display {
  stop(): void;
}

/** Starts the display; call `stop()` before printing anything else. */
export function startDisplay(plan: Plan, progress: Progress, stream: NodeJS.WriteStream = process.stderr): Display {
  const tty = Boolean(stream.isTTY);
  const multibar = new cliProgress.MultiBar(
    {
      stream,
      clearOnComplete: true,
      hideCursor: tty,
      autopadding: true,
      barsize: BAR_SIZE,
      noTTYOutput: !tty,
      notTTYSchedule: 10_000,
      format: (options, params, payload: Record<string, string>) => {
        const size = options.barsize ?? BAR_SIZE;
        const done = Math.round(params.progress * size);
        const bar = (options.barCompleteChar ?? "#").repeat(done) + (options.barIncompleteChar ?? "-").repeat(size - done);
        return payload.line ? `${bar} ${payload.line}` : bar;
      },
    },
    cliProgress.Presets.shades_classic,
  );
  const totalS = Math.max(1, Math.ceil(plan.durationMs / 1000));
  const main = multibar.create(totalS, 0, { line: "" });
  const ruleBars = new Map<string, cliProgress.SingleBar>();

  const update = () => {
    const elapsed = progress.elapsedMs;
    const running = progress.rules.filter((r) => elapsed >= r.startMs && elapsed < r.endMs);
    // The running rules have their own bars below.
    main.update(Math.min(totalS, Math.floor(elapsed / 1000)), { line: runLine(progress, totalS) });
    if (!tty) return;
    for (const [id, bar] of ruleBars) {
      if (!running.some((r) => r.key === id)) {
        multibar.remove(bar);
        ruleBars.delete(id);
      }
    }
    for (const r of running.slice(0, MAX_RULE_BARS)) {
      const span = Math.max(1, Math.round((r.endMs - r.startMs) / 1000));
      const at = Math.min(span, Math.floor((elapsed - r.startMs) / 1000));
      const payload = { line: ruleLine(r) };
      const bar = ruleBars.get(r.key);
      if (bar) bar.update(at, payload);
      else ruleBars.set(r.key, multibar.create(span, at, payload));
    }
  };
  const timer = setInterval(update, 250);
  update();
  return {
    stop() {
      clearInterval(timer);
      update();
      multibar.stop();
    },
  };
}

function ruleLine(r: RuleProgress): string {
  return `${r.key.padStart(6)} ${r.name.padEnd(18)} sent ${r.sent} admitted ${r.admitted} denied ${r.denied}` + (r.errors ? ` errors ${r.errors}` : "");
}
