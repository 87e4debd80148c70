/**
 * Workspace plans. Only organizations on a self-hosted enterprise plan may register listeners
 * (the real API answers 403 otherwise). Unknown workspaces get the self-hosted enterprise plan so
 * a fresh local copy works out of the box; the seeded workspaces below, and
 * `PUT /v2/_emulator/workspaces/{workspace_id}`, give others.
 */
export const PLANS = ["developer", "plus", "enterprise", "enterprise-self-hosted"] as const;
export type Plan = (typeof PLANS)[number];

export const LISTENER_PLANS: readonly Plan[] = ["enterprise-self-hosted"];

/** Seeded workspaces (docs/control-plane.md, "Seed data"). */
export const SEEDED_WORKSPACES: Readonly<Record<string, { name: string; plan: Plan }>> = {
  "00000000-0000-4000-8000-0000000000e5": { name: "Self-hosted enterprise workspace", plan: "enterprise-self-hosted" },
  "00000000-0000-4000-8000-00000000000b": { name: "Plus workspace (no listeners)", plan: "plus" },
};

export function defaultPlanFor(workspaceId: string): Plan {
  return SEEDED_WORKSPACES[workspaceId]?.plan ?? "enterprise-self-hosted";
}
