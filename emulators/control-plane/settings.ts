import { millisecondsSetting } from "../shared/settings.ts";
import { DEFAULT_STEP_MS } from "./deployments/lifecycle.ts";

/**
 * CONTROL_PLANE_REVISION_STEP_MS: how long each revision status step takes (default 500; 0 makes
 * pipelines instant). Read in the Worker when a request may create a revision, so a bad value is
 * a 500 naming the setting rather than a guess.
 */
export function revisionStepMs(env: { readonly CONTROL_PLANE_REVISION_STEP_MS?: string | undefined }): number {
  return millisecondsSetting("CONTROL_PLANE_REVISION_STEP_MS", env.CONTROL_PLANE_REVISION_STEP_MS, { fallback: DEFAULT_STEP_MS, max: 999_999_999 });
}
