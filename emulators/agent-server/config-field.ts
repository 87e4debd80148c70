import { z } from "zod";
import { JsonObjectSchema, type JsonObject } from "../shared/pydantic/json.ts";

/**
 * The `config` of an assistant or a run, as the API's Config schema types it: `tags` a list of
 * strings, `recursion_limit` an integer, `configurable` an object; other keys are kept as sent.
 * Checked when it arrives, so what is stored is always what the Assistant schema promises back.
 */
export const ConfigSchema = z.looseObject({
  tags: z.array(z.string()).optional(),
  recursion_limit: z.int().optional(),
  configurable: JsonObjectSchema.optional(),
}) as unknown as z.ZodType<JsonObject>;
