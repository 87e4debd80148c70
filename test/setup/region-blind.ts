/**
 * Gateway-side Workers test files whose outcome the region cannot change: vitest.config.ts runs
 * them in the US project only, and test/unit/structure/region-blind.test.ts holds each reason.
 * - through-gateway/: requests to the control plane and the agent server, whose tables give every
 *   row the same limits in both regions; none of these files reads the region, and the other
 *   per-region values (jurisdiction, origins, hosts) are the same LOCAL_BINDINGS in both projects.
 * - differential.test.ts: counted by a limiter that admits every request (recordingLimiter("allow")),
 *   so no limit is read; its fixed seed draws the same requests in both regions.
 * Everything that reads a region's rows, jurisdiction, residency or settings runs in both.
 */
export const REGION_BLIND = ["test/workers/through-gateway/**", "test/workers/gateway/differential.test.ts"] as const;
