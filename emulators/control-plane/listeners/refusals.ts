import { LISTENER_PLANS, type Plan } from "../plans.ts";
import { refuse } from "../../shared/result.ts";

// Messages follow the real API's wording (control-plane.openapi.json examples, reference README),
// so clients that match on them behave the same against the emulator.

/** Whether a workspace on this plan may use listeners at all. */
export const allowsListeners = (plan: Plan): boolean => LISTENER_PLANS.includes(plan);

/** 403: the workspace's plan has no listeners (the real API uses this text for every operation). */
export const listenersNotAllowed = (workspaceId: string) =>
  refuse(
    403,
    `Listeners cannot be created for LangSmith workspace ID '${workspaceId}'. Creating listeners is only allowed for LangSmith organizations with self-hosted enterprise plans.`,
  );

/** 404: no listener with this id in the workspace. */
export const listenerNotFound = (listenerId: string) => refuse(404, `Listener ID ${listenerId} not found.`);

/** 409: the workspace already has a listener for this compute id. */
export const duplicateComputeId = (workspaceId: string, computeId: string) =>
  refuse(409, `Listener for LangSmith workspace ID '${workspaceId}' and compute ID '${computeId}' already exists.`);

/** 400: `compute_type` and `compute_id` are fixed at creation (docs/control-plane-listeners.md). */
export const immutableField = (listenerId: string, field: "compute_type" | "compute_id", stored: string, sent: string) =>
  refuse(
    400,
    `${field} cannot be changed after creation: listener ${listenerId} has ${field} '${stored}', the request sent '${sent}'. Delete the listener and create a new one instead.`,
  );
