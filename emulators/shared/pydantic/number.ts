import { z } from "zod";

/**
 * pydantic's `float` in a JSON body: any JSON number (integers included); anything else is
 * `float_type`, not the `int_type` a plain `z.number()` would be reported as.
 */
export const float = () =>
  z.custom<number>((value) => typeof value === "number" && Number.isFinite(value), {
    message: "Input should be a valid number",
    params: { type: "float_type" },
  });
