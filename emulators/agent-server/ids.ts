import { z } from "zod";
import { uuid } from "../shared/pydantic/uuid.ts";
import { defaultAssistantId, findGraph } from "./graphs/registry.ts";

/**
 * An `assistant_id` in a path: an assistant UUID, or a graph id meaning that graph's default
 * assistant (as the real server accepts). Anything else is a 422 `uuid_parsing` on the path.
 */
export const AssistantIdParam = z.object({
  assistant_id: z.preprocess((value) => (typeof value === "string" && findGraph(value) ? defaultAssistantId(value) : value), uuid()),
});

/** A `thread_id` in a path. */
export const ThreadIdParam = z.object({ thread_id: uuid() });

/** `thread_id` and `run_id` in a path. */
export const RunIdParam = z.object({ thread_id: uuid(), run_id: uuid() });

/**
 * The assistant a run names in its body: a UUID, or a graph id for that graph's default
 * assistant. Undefined for any other string, which is an unknown assistant (404), not a schema
 * violation: the body schema allows any graph name.
 */
export function resolveAssistantRef(ref: string): string | undefined {
  if (findGraph(ref)) return defaultAssistantId(ref);
  const parsed = uuid().safeParse(ref);
  return parsed.success ? parsed.data : undefined;
}
