// Where each relay target's Worker comes from, and the upstream every one relays to. The bare
// relays are fixtures of their own; the gateway is bench:gateway's, its agent server bound to the
// bench's upstream and the other upstreams pointed where nothing is ever sent.
import { resolve } from "node:path";
import { targetSpec, ROOT, TARGET_SPECS, type TargetSpec } from "../gateway/targets.ts";
import type { RelayTargetName } from "./target-names.ts";

const FIXTURES = resolve(ROOT, "bench/relay/fixtures");

/**
 * The origin the gateway is given for the upstreams the bench never reaches (hosted API, control
 * plane): a URL, so its settings hold without their service bindings; port 9 (discard) refuses.
 */
const UNUSED_ORIGIN = "http://127.0.0.1:9";

/** A fixture's spec; its name is bench:gateway's word for a bare Worker, used in build errors only. */
function fixtureSpec(file: string, upstreams: TargetSpec["upstreams"]): TargetSpec {
  return { name: "bare", config: resolve(FIXTURES, `${file}.wrangler.toml`), vars: {}, upstreams };
}

/** The agent server's stand-in (fixtures/upstream.ts); run under the agent-server emulator's Worker name, which every target's AGENT_SERVER binding names. */
export const UPSTREAM_SPEC = fixtureSpec("upstream", []);

/**
 * @param beforeDir a checkout of the --before revision (gateway/before-checkout.ts), for `before`
 */
export function relayTargetSpec(name: RelayTargetName, beforeDir?: string): TargetSpec {
  switch (name) {
    case "pass-through":
      return fixtureSpec("pass-through", ["agent-server"]);
    case "pair":
      return fixtureSpec("pair-relay", ["agent-server"]);
    case "gateway":
    case "before": {
      const spec = targetSpec(name, beforeDir);
      return {
        ...spec,
        vars: { ...TARGET_SPECS.gateway.vars, HOSTED_API_ORIGIN: UNUSED_ORIGIN, CONTROL_PLANE_ORIGIN: UNUSED_ORIGIN },
        upstreams: ["agent-server"],
      };
    }
  }
}
