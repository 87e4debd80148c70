// One profiled run: the target started as bench:gateway starts it (serving.ts, with workerd's
// inspector on), checked, warmed up, then the shape driven with the bench's own plan while the V8
// profiler samples the target's Worker. Everything started is stopped whatever happens.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { mkdir } from "node:fs/promises";
import { CouldNotRun } from "../../tools/kit/command.ts";
import { pinAll, storageRoot, type Progress } from "./bench.ts";
import { summarizeProfile, type CpuProfile, type ProfileSummary } from "./cpu-profile.ts";
import { drive, measure, sendPrelude, type Measurement } from "./drive.ts";
import { DevToolsSession, inspectorTargets, targetOf } from "./inspector.ts";
import { probe } from "./probe.ts";
import type { ProfileOptions } from "./profile-args.ts";
import { AFTER_RUN, BEFORE_RUN, waitForQuiet } from "./quiet.ts";
import { prepareTarget } from "./serving.ts";
import { expectationFor, planShape, type ShapeSizes } from "./shapes.ts";
import { bundleOrigin } from "./source-origin.ts";
import { ROOT, TARGET_SPECS } from "./targets.ts";
import { DEFAULTS } from "./args.ts";
import { checkAnswers, type AnswerCheck } from "./verdict.ts";

export interface ProfileResult {
  /** The .cpuprofile written (absolute). */
  readonly out: string;
  readonly measurement: Measurement;
  readonly check: AnswerCheck;
  /** Requests the profiled run sent. */
  readonly sent: number;
  readonly summary: ProfileSummary;
  /** Whether frames were named by the bundle's source map. */
  readonly sourceMapped: boolean;
  readonly pinning: string;
}

/** The profiled Worker's service name, as workerd's inspector lists it (the config's `name`). */
async function workerName(spec: (typeof TARGET_SPECS)[keyof typeof TARGET_SPECS]): Promise<string> {
  const { unstable_readConfig } = await import("wrangler");
  const { name } = unstable_readConfig({ config: spec.config, env: spec.env });
  if (!name) throw new CouldNotRun(`${spec.config} names no Worker`);
  return name;
}

export async function runProfile(options: ProfileOptions, progress: Progress): Promise<ProfileResult> {
  const spec = TARGET_SPECS[options.target];
  const sizes: ShapeSizes = { ...options, burstFactor: DEFAULTS.burstFactor };
  const workdir = await mkdtemp(join(tmpdir(), "tollgate-profile-"));
  const storage = await storageRoot(options.storage, workdir);
  let stop = async () => {};
  let session: DevToolsSession | undefined;
  try {
    progress(`bundling ${spec.name} (miniflare), Durable Object storage in ${storage.dir}...`);
    const prepared = await prepareTarget(spec, "miniflare", workdir, join(storage.dir, spec.name), { inspectorPort: options.inspectorPort });
    const target = await prepared.start();
    stop = target.stop;
    progress(`${target.name} on ${target.url.origin} (workerd pid ${target.pids.join(", ")}), inspector on 127.0.0.1:${options.inspectorPort}`);
    await probe(target);
    const pinning = options.pin ? pinAll([target]) : "not pinned (--no-pin)";
    progress(pinning);

    // Warm keys re-send new keys' keys, so the new keys go first, unprofiled, as the bench runs them.
    const before = options.shape === "warm-keys" ? (["new-keys"] as const) : [];
    if (options.warmup > 0) {
      progress(`warm-up: ${[...before, options.shape].join(", ")}, ${options.warmup} requests each, not profiled`);
      const small: ShapeSizes = { ...sizes, keys: Math.min(options.warmup, options.keys), warmPasses: 1, requests: options.warmup };
      for (const shape of [...before, options.shape]) await drive(target, planShape(shape, 0, small), BEFORE_RUN);
    }
    await waitForQuiet(target.pids, BEFORE_RUN);

    const found = targetOf(await inspectorTargets(options.inspectorPort), await workerName(spec));
    session = await DevToolsSession.open(found.webSocketDebuggerUrl);
    await session.send("Profiler.enable");
    await session.send("Profiler.setSamplingInterval", { interval: options.samplingUs });

    // Within bench:gateway's group, warm keys follow new keys at once, on counters still warm.
    for (const shape of before) await measure(target, planShape(shape, 1, sizes), undefined);
    const plan = planShape(options.shape, 1, sizes);
    await sendPrelude(target, plan);
    progress(`profiling ${options.shape}: ${plan.amount} requests over ${plan.connections} connections, sampling every ${options.samplingUs} us`);
    await session.send("Profiler.start");
    // Until the last answer, or until the target is quiet again (the work the run deferred too).
    const measurement = await measure(target, plan, options.until === "quiet" ? AFTER_RUN : undefined);
    const { profile } = await session.send<{ profile: CpuProfile }>("Profiler.stop");

    const out = resolve(options.out);
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, JSON.stringify(profile));
    const origin = prepared.bundle ? await bundleOrigin(prepared.bundle.entry, ROOT) : undefined;
    return {
      out,
      measurement,
      check: checkAnswers(expectationFor(plan, spec.name), measurement, plan.amount),
      sent: plan.amount,
      summary: summarizeProfile(profile, options.samplingUs, origin),
      sourceMapped: origin !== undefined,
      pinning,
    };
  } finally {
    session?.close();
    await stop().catch(() => undefined);
    await rm(workdir, { recursive: true, force: true });
    if (storage.owned) await rm(storage.dir, { recursive: true, force: true });
  }
}
