/**
 * The revision lifecycle as a pure function of time: a revision's status is derived from when it
 * was created, the step length and "now", so the store can catch up after a late alarm or a
 * restart by asking what is due and persisting it. No runtime imports (unit-tested in Node).
 */

/** Every revision status the reference lists (schema Revision, `status`). */
export const REVISION_STATUSES = [
  "CREATING",
  "QUEUED",
  "AWAITING_BUILD",
  "BUILDING",
  "AWAITING_DEPLOY",
  "DEPLOYING",
  "CREATE_FAILED",
  "BUILD_FAILED",
  "DEPLOY_FAILED",
  "DEPLOYED",
  "SKIPPED",
  "INTERRUPTED",
  "UNKNOWN",
] as const;
export type RevisionStatus = (typeof REVISION_STATUSES)[number];

/** How a revision's pipeline ends; chosen once, when the revision is created. */
export type PipelineEnd = "deployed" | "create_failed" | "build_failed" | "deploy_failed";

const PIPELINE = ["CREATING", "QUEUED", "AWAITING_BUILD", "BUILDING", "AWAITING_DEPLOY", "DEPLOYING"] as const satisfies readonly RevisionStatus[];

/** The statuses a revision walks, one per step, for each outcome; the last one is final. */
export const PATHS: Readonly<Record<PipelineEnd, readonly RevisionStatus[]>> = {
  deployed: [...PIPELINE, "DEPLOYED"],
  create_failed: ["CREATING", "CREATE_FAILED"],
  build_failed: [...PIPELINE.slice(0, 4), "BUILD_FAILED"],
  deploy_failed: [...PIPELINE, "DEPLOY_FAILED"],
};

/** Markers that, found in a revision's configuration, make its pipeline fail (docs fragment). */
const FAILURE_SWITCHES: ReadonlyArray<readonly [marker: string, outcome: PipelineEnd]> = [
  // Earliest failure first: a value carrying two markers fails at the first stage reached.
  ["fail-create", "create_failed"],
  ["fail-build", "build_failed"],
  ["fail-deploy", "deploy_failed"],
];

/**
 * The outcome a revision's configuration asks for: `fail-create`, `fail-build` or `fail-deploy`
 * in any of its string values (e.g. `repo_ref: "fail-build"`, `image_uri: "x:fail-deploy"`)
 * makes that stage fail; otherwise the revision deploys.
 */
export function outcomeOf(config: Readonly<Record<string, unknown>>): PipelineEnd {
  const text = Object.values(config)
    .filter((v): v is string => typeof v === "string")
    .join("\n")
    .toLowerCase();
  return FAILURE_SWITCHES.find(([marker]) => text.includes(marker))?.[1] ?? "deployed";
}

/** Where a revision is at a given time. */
export interface Progress {
  readonly status: RevisionStatus;
  /** When it entered `status` (ms since epoch): the revision's `updated_at`. */
  readonly since: number;
  /** When the next transition is due, or null when `status` is final. */
  readonly next: number | null;
}

/**
 * The status due at `now` for a revision created at `createdMs` that takes `stepMs` per status.
 * A clock before creation reads as the first status; a late clock lands on the status that is
 * due (never past the final one), with `since` the time it was due, not the time it was noticed.
 * A step of 0 reaches the final status at once.
 */
export function progressAt(createdMs: number, stepMs: number, outcome: PipelineEnd, now: number): Progress {
  const path = PATHS[outcome];
  const last = path.length - 1;
  const elapsed = Math.max(0, now - createdMs);
  const index = stepMs <= 0 ? last : Math.min(last, Math.floor(elapsed / stepMs));
  return {
    status: path[index]!,
    since: createdMs + index * stepMs,
    next: index < last ? createdMs + (index + 1) * stepMs : null,
  };
}

/** Statuses a revision never leaves. */
export function isFinal(status: RevisionStatus): boolean {
  return !(PIPELINE as readonly RevisionStatus[]).includes(status);
}

/** CONTROL_PLANE_REVISION_STEP_MS when unset (control-plane/settings.ts): deployed 3 s after creation. */
export const DEFAULT_STEP_MS = 500;
