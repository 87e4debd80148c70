import { z } from "zod";
import { isWholeQuantity, parseQuantity } from "./quantity.ts";
import { checkedString } from "../../shared/pydantic/value-error.ts";

/** The resources a template gets when the request leaves a quantity out (one core, 2 GiB, 10 GiB). */
export const DEFAULT_RESOURCES = { cpu: "1", memory: "2Gi", storage: "10Gi" } as const;

export type ResourceName = keyof typeof DEFAULT_RESOURCES;

/**
 * Why `text` is not acceptable as this resource, or nothing. Beyond the quantity grammar: every
 * resource must be above zero (a sandbox with no CPU or memory cannot start), and memory and
 * storage must be whole bytes, which catches `512m` (0.512 bytes) written for `512Mi`.
 */
export function checkResourceQuantity(resource: ResourceName, text: string): string | undefined {
  const parsed = parseQuantity(text);
  if (!parsed.ok) return parsed.reason;
  const { quantity } = parsed;
  if (quantity.isNegative || quantity.isZero) return `${resource} must be greater than zero, got '${text}'`;
  if (resource !== "cpu" && !isWholeQuantity(quantity)) {
    const hint = quantity.suffix === "m" ? ` (m is milli; did you mean ${quantity.sign}${quantity.number}Mi?)` : "";
    return `${resource} must be a whole number of bytes, '${text}' is not${hint}`;
  }
  return undefined;
}

// 64 characters hold any sensible quantity; the cap keeps exact arithmetic on it cheap.
const quantityOf = (resource: ResourceName) =>
  checkedString((text) => checkResourceQuantity(resource, text), z.string().max(64)).default(DEFAULT_RESOURCES[resource]);

/** `resources`: each quantity may be left out and then takes its default. */
export const TemplateResources = z
  .strictObject({ cpu: quantityOf("cpu"), memory: quantityOf("memory"), storage: quantityOf("storage") })
  .default(() => ({ ...DEFAULT_RESOURCES }));
export type TemplateResources = z.output<typeof TemplateResources>;
