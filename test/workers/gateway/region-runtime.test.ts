// The isolate's region runtime (src/gateway/region-runtime.ts): made once per checked settings by
// Isolate.runtime(env), it owns the isolate's counting, so the request path counts through it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import type { Env } from "../../../src/env.ts";
import { counterAddress } from "../../../src/core/limiter/index.ts";
import type { HitBatch } from "../../../src/durable-objects/counter-object.ts";
import { Isolate } from "../../../src/gateway/isolate.ts";
import { identityDigest } from "../../../src/core/rules/identity.ts";

/** The real counter objects, recording the id of every call made to them. */
function callRecordingCounters() {
  const calls: string[] = [];
  const namespace = {
    jurisdiction: () => namespace,
    getByName(name: string) {
      const stub = env.COUNTERS.getByName(name);
      return {
        decide(batches: HitBatch[]) {
          calls.push(...batches.map((batch) => batch.call ?? ""));
          return stub.decide(batches);
        },
      };
    },
  };
  return { calls, namespace: namespace as unknown as Env["COUNTERS"] };
}

describe("Isolate.runtime", () => {
  it("names identities by their digest under the env's own secret, the same for a returning caller, and each env's under its own", () => {
    const isolate = new Isolate({ id: "runtime-digest-test" });
    const rotated = { ...env, IDENTITY_HMAC_SECRET: `${env.IDENTITY_HMAC_SECRET}-rotated` } as Env;
    const identity = { kind: "api-key", apiKey: `k-${crypto.randomUUID()}` } as const;
    for (let pass = 0; pass < 2; pass++) {
      expect(isolate.runtime(env).identityDigest(identity)).toBe(identityDigest(identity, env.IDENTITY_HMAC_SECRET!));
      expect(isolate.runtime(rotated).identityDigest(identity)).toBe(identityDigest(identity, rotated.IDENTITY_HMAC_SECRET!));
    }
    expect(isolate.runtime(rotated).identityDigest(identity)).not.toBe(isolate.runtime(env).identityDigest(identity));
  });

  it("is one runtime per env: the same object for every request, a second env's kept beside it", () => {
    const isolate = new Isolate({ id: "runtime-test" });
    const other = { ...env } as Env;
    const first = isolate.runtime(env);
    expect(isolate.runtime(env)).toBe(first);
    const second = isolate.runtime(other);
    expect(second).not.toBe(first);
    expect(isolate.runtime(env)).toBe(first); // not only the last env's is kept
    expect(isolate.runtime(other)).toBe(second);
  });

  it("gives each runtime of one isolate a caller id of its own: the counter objects never see two countings as one caller", async () => {
    const isolate = new Isolate({ id: `runtime-test-${crypto.randomUUID()}` });
    const { calls, namespace } = callRecordingCounters();
    const limit = { count: 10, intervalMs: 60_000 };
    const address = counterAddress(env.REGION, 16, crypto.randomUUID().replaceAll("-", ""));
    // A call timeout no machine reaches: a runner's first call to a counter object (its module
    // loading) can outlast the region's second on a busy machine, and the local fallback would answer.
    for (const served of [
      { ...env, COUNTERS: namespace, COUNTER_TIMEOUT_MS: "60000" },
      { ...env, COUNTERS: namespace, COUNTER_TIMEOUT_MS: "60000" },
    ] as Env[]) {
      const verdict = await isolate.runtime(served).count(address, limit, { enforce: true, background: undefined });
      expect(verdict).toMatchObject({ decidedBy: "object", allowed: true });
    }
    expect(calls).toEqual([`${isolate.id}-1`, `${isolate.id}.2-1`]);
  });
});
