import type { Context } from "hono";
import type { Env } from "../../env.ts";
import { detail, unprocessable } from "../shared/http.ts";
import type { Outcome } from "./outcome.ts";

/** The Hono environment of the emulator's routes. */
export interface AgentServerEnv {
  Bindings: Env;
}

/** A store's refusal as FastAPI answers it: `{"detail": "..."}`, or a 422 with a list. */
export function refusal(c: Context, outcome: Extract<Outcome<unknown>, { ok: false }>): Response {
  return outcome.status === 422 ? unprocessable(c, outcome.detail) : detail(c, outcome.status, outcome.detail);
}

/** 200 with the store's value as JSON, or its refusal. */
export function answer<T>(c: Context, outcome: Outcome<T>): Response {
  return outcome.ok ? c.json(outcome.value as object, 200) : refusal(c, outcome);
}
