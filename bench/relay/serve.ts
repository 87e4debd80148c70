// Builds and serves the relay targets as bench:gateway serves its own (the dry-run bundle under
// Miniflare, one workerd per target), each with the bench's upstream in the same Miniflare, and
// gives a tollgate target the limits the bench needs through its admin API.
import { dirname, join } from "node:path";
import type { LegacyWorkerOptions } from "miniflare";
import { request } from "undici";
import { emulatorWorkerName } from "../../tools/emulator-workers.ts";
import { LOCAL_BINDINGS } from "../../tools/local-bindings.ts";
import { buildBundle, type Bundle } from "../gateway/build.ts";
import { newWorkerdProcesses } from "../gateway/processes.ts";
import { withMiniflare } from "../gateway/serve-miniflare.ts";
import { BENCH_ADMIN_TOKEN, type TargetSpec } from "../gateway/targets.ts";
import { gatewayRuntime, quietEnvironment, type Started } from "../gateway/worker-runtime.ts";
import { SOCKET_PATH } from "./frames.ts";
import { isTollgate, type RelayTargetName } from "./target-names.ts";
import { UPSTREAM_SPEC } from "./targets.ts";
import { FRAMES_KEY } from "./workloads.ts";

export interface RunningRelay {
  readonly name: RelayTargetName;
  readonly url: URL;
  /** The workerd processes serving it (the target and the upstream): their CPU and memory are its. */
  readonly pids: readonly number[];
  stop(): Promise<void>;
}

export interface PreparedRelay {
  readonly name: RelayTargetName;
  /** @param storageDir where its Durable Objects keep their SQLite files: a fresh one per start */
  start(storageDir: string): Promise<RunningRelay>;
}

/** The upstream built once: Miniflare options every target's Miniflare runs beside it. */
export async function buildUpstream(workdir: string): Promise<LegacyWorkerOptions> {
  quietEnvironment();
  const bundle = await buildBundle(UPSTREAM_SPEC, "upstream.ts", join(workdir, "upstream"));
  return {
    ...(await gatewayRuntime()),
    // Under the agent-server emulator's Worker name: the name each target's AGENT_SERVER binding calls.
    name: await emulatorWorkerName("agent-server"),
    modules: [{ type: "ESModule", path: bundle.entry }],
    modulesRoot: dirname(bundle.entry),
  } as LegacyWorkerOptions;
}

export async function prepareRelay(name: RelayTargetName, spec: TargetSpec, workdir: string, upstream: LegacyWorkerOptions): Promise<PreparedRelay> {
  const { unstable_readConfig } = await import("wrangler");
  const { main } = unstable_readConfig({ config: spec.config, env: spec.env });
  if (!main) throw new Error(`${spec.config} names no main module`);
  const bundle: Bundle = await buildBundle(spec, main, join(workdir, name));
  return {
    name,
    async start(storageDir) {
      const { value, pids } = await newWorkerdProcesses(() => withMiniflare(spec, bundle, { storageDir, emulators: [upstream] }), answers);
      try {
        if (pids.length === 0) throw new Error(`${name}: no workerd process appeared under this one (is /proc readable?)`);
        if (isTollgate(name)) await allowBenchTraffic(value.url);
        return { name, url: value.url, pids, stop: value.stop };
      } catch (error) {
        await value.stop();
        throw error;
      }
    },
  };
}

/** One request answered (any status): the Worker behind the address is up. */
async function answers({ url }: Started): Promise<void> {
  await (await fetch(new URL("/__bench/ready", url))).arrayBuffer();
}

/** The most an override may admit (src/core/overrides/bounds.ts), per second. */
const BENCH_LIMIT = { count: 100_000, interval: 1 };

/**
 * The frame runs' key limited at 100,000 per second on every rule, through the admin API (on its
 * own host, as decision-mix.ts reaches it), then checked on a request of its own: its
 * RateLimit-Policy must show that limit, or the gateway would refuse the bench part way.
 *
 * @throws Error with the gateway's answer when it refuses the override or does not apply it
 */
async function allowBenchTraffic(url: URL): Promise<void> {
  const body = {
    identity: { kind: "api-key", value: FRAMES_KEY },
    action: "limit",
    limits: { us: BENCH_LIMIT, eu: BENCH_LIMIT },
    reason: "bench:relay: every frame admitted",
  };
  const made = await request(new URL("/_tollgate/overrides", url), {
    method: "POST",
    headers: { host: LOCAL_BINDINGS.ADMIN_HOSTS, authorization: `Bearer ${BENCH_ADMIN_TOKEN}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await made.body.text();
  if (made.statusCode >= 300) throw new Error(`POST /_tollgate/overrides answered ${made.statusCode}: ${answer.slice(0, 300)}`);
  const probe = await fetch(new URL(SOCKET_PATH.replace(/\/stream\/events$/, ""), url), { headers: { "x-api-key": FRAMES_KEY } });
  await probe.arrayBuffer();
  const policy = probe.headers.get("ratelimit-policy") ?? "";
  if (!policy.includes(`q=${BENCH_LIMIT.count}`)) {
    throw new Error(`the gateway does not apply the bench's limit to ${FRAMES_KEY} (status ${probe.status}, RateLimit-Policy "${policy}")`);
  }
}
