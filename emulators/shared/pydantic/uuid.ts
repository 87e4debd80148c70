import { z } from "zod";
import { canonicalUuid } from "../../../src/core/rules/uuid.ts";

/**
 * pydantic's `UUID`: any of the spellings it accepts (hyphenated, 32 digits, braced, `urn:uuid:`;
 * any case, version or variant), read as the canonical lower-case hyphenated form, so lookups and
 * messages see one spelling and a well-formed id nobody issued is a 404, not a 422. The parser is
 * the gateway's own (src/core/rules/uuid.ts), so both read a UUID the same way. Anything else is
 * `uuid_parsing`.
 *
 * @example
 * z.object({ thread_id: uuid() }).parse({ thread_id: "{67E55044-10B1-426F-9247-BB680E5FE0C8}" })
 * // { thread_id: "67e55044-10b1-426f-9247-bb680e5fe0c8" }
 */
export const uuid = () =>
  z.string().transform((text, ctx) => {
    const id = canonicalUuid(text);
    if (id !== undefined) return id;
    ctx.addIssue({ code: "custom", message: "Input should be a valid UUID, invalid character or length", params: { type: "uuid_parsing" } });
    return z.NEVER;
  });
