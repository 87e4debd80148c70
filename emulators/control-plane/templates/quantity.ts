/**
 * Kubernetes resource quantities (`k8s.io/apimachinery/pkg/api/resource.Quantity`), the syntax of
 * a template's `resources.cpu`, `memory` and `storage`. Pure: no runtime, no dependencies.
 *
 * ```
 * <quantity>        ::= <signedNumber><suffix>
 * <signedNumber>    ::= <number> | <sign><number>
 * <sign>            ::= "+" | "-"
 * <number>          ::= <digits> | <digits>.<digits> | <digits>. | .<digits>
 * <suffix>          ::= <binarySI> | <decimalExponent> | <decimalSI>
 * <binarySI>        ::= Ki | Mi | Gi | Ti | Pi | Ei
 * <decimalSI>       ::= n | u | m | "" | k | M | G | T | P | E
 * <decimalExponent> ::= "e" <signedInteger> | "E" <signedInteger>
 * ```
 *
 * The exponent is an integer: the upstream grammar comment writes `<signedNumber>`, but its parser
 * (`ParseQuantity`) reads the exponent with `strconv.ParseInt(_, 10, 32)`, so `1e1.5` is refused
 * there too. `1E` is one exa (decimal SI); `1e` has no exponent and is refused.
 */

/** Powers of 1024. */
export const BINARY_SI_SUFFIXES = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;
/** Powers of 1000, from nano to exa ("" is a plain number). */
export const DECIMAL_SI_SUFFIXES = ["n", "u", "m", "", "k", "M", "G", "T", "P", "E"] as const;

/** Which family the suffix belongs to (the names Kubernetes uses for `Quantity.Format`). */
export type QuantityFormat = "BinarySI" | "DecimalSI" | "DecimalExponent";

/** A parsed quantity, still in its written parts (nothing is rounded). */
export interface Quantity {
  readonly sign: "" | "+" | "-";
  /** The number as written: digits with at most one `.`. */
  readonly number: string;
  /** The suffix as written: "", a binary or decimal SI suffix, or `e`/`E` and an exponent. */
  readonly suffix: string;
  readonly format: QuantityFormat;
  /** Whether every digit is 0 (`0`, `-0.0`, `0Gi`). */
  readonly isZero: boolean;
  /** Whether the value is below zero (a `-` sign on a non-zero number). */
  readonly isNegative: boolean;
}

/** The outcome of {@link parseQuantity}: the quantity, or why the text is not one. */
export type QuantityParse = { readonly ok: true; readonly quantity: Quantity } | { readonly ok: false; readonly reason: string };

const NUMBER = /^(?:\d+\.?\d*|\.\d+)$/;
const EXPONENT = /^[eE]([+-]?\d+)$/;
const INT32_MAX = 2 ** 31 - 1;
const SUFFIX_HELP = "use Ki, Mi, Gi, Ti, Pi, Ei (powers of 1024), n, u, m, k, M, G, T, P, E (powers of 1000) or e<exponent>";

/**
 * Parses a quantity string, e.g. `500m`, `2`, `0.5`, `4Gi`, `512Mi`, `10G`, `1e3`.
 *
 * @example
 * parseQuantity("4Gi")  // { ok: true, quantity: { sign: "", number: "4", suffix: "Gi", format: "BinarySI", ... } }
 * parseQuantity("4GB")  // { ok: false, reason: "unknown suffix 'GB' in '4GB': use Ki, Mi, ..." }
 */
export function parseQuantity(text: string): QuantityParse {
  if (text === "") return refused("a quantity cannot be empty (e.g. 500m, 2, 4Gi)");
  if (/\s/.test(text)) return refused(`'${text}' contains whitespace; write the quantity without spaces (e.g. 512Mi)`);
  const [, sign = "", number = "", suffix = ""] = /^([+-]?)([\d.]*)(.*)$/s.exec(text) ?? [];
  if (!NUMBER.test(number)) return refused(`'${text}' does not start with a number (e.g. 500m, 2, 0.5, 4Gi)`);
  const format = formatOf(suffix);
  if (!format) return refused(`unknown suffix '${suffix}' in '${text}': ${SUFFIX_HELP}`);
  if (format === "DecimalExponent" && Math.abs(Number(EXPONENT.exec(suffix)![1])) > INT32_MAX) {
    return refused(`the exponent of '${text}' is out of range`);
  }
  const isZero = !/[1-9]/.test(number);
  return { ok: true, quantity: { sign: sign as Quantity["sign"], number, suffix, format, isZero, isNegative: sign === "-" && !isZero } };
}

/** Writes a quantity back in its parts; `formatQuantity(parseQuantity(s).quantity) === s`. */
export function formatQuantity(quantity: Pick<Quantity, "sign" | "number" | "suffix">): string {
  return `${quantity.sign}${quantity.number}${quantity.suffix}`;
}

/**
 * Whether the quantity is a whole number of base units (bytes for memory and storage). Exact:
 * `0.5Ki` is 512, so whole; `500m` is 0.5, so not (the classic slip of `m` for `Mi`).
 */
export function isWholeQuantity(quantity: Quantity): boolean {
  if (quantity.isZero) return true;
  const [whole = "", fraction = ""] = quantity.number.split(".");
  const digits = BigInt(`${whole}${fraction}`.replace(/^0+(?=\d)/, "") || "0");
  let pow2 = 0n;
  let pow10 = -fraction.length;
  if (quantity.format === "BinarySI") pow2 = 10n * BigInt(BINARY_SI_SUFFIXES.indexOf(quantity.suffix as (typeof BINARY_SI_SUFFIXES)[number]) + 1);
  else if (quantity.format === "DecimalSI") pow10 += 3 * (DECIMAL_SI_SUFFIXES.indexOf(quantity.suffix as (typeof DECIMAL_SI_SUFFIXES)[number]) - 3);
  else pow10 += Number(EXPONENT.exec(quantity.suffix)![1]);
  if (pow10 >= 0) return true;
  // digits * 2^pow2 must be divisible by 10^-pow10, so 5^-pow10 must divide the digits, which is
  // impossible once 5^-pow10 exceeds them: answer a huge negative exponent without building 10^huge.
  if (-pow10 > 2 * quantity.number.length) return false;
  return (digits << pow2) % 10n ** BigInt(-pow10) === 0n;
}

function formatOf(suffix: string): QuantityFormat | undefined {
  if ((BINARY_SI_SUFFIXES as readonly string[]).includes(suffix)) return "BinarySI";
  if ((DECIMAL_SI_SUFFIXES as readonly string[]).includes(suffix)) return "DecimalSI";
  if (EXPONENT.test(suffix)) return "DecimalExponent";
  return undefined;
}

const refused = (reason: string): QuantityParse => ({ ok: false, reason });
