import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  BINARY_SI_SUFFIXES,
  DECIMAL_SI_SUFFIXES,
  formatQuantity,
  isWholeQuantity,
  parseQuantity,
  type Quantity,
} from "../../../emulators/control-plane/templates/quantity.ts";
import { checkResourceQuantity } from "../../../emulators/control-plane/templates/resources.ts";

const parsed = (text: string): Quantity => {
  const result = parseQuantity(text);
  if (!result.ok) throw new Error(`${text}: ${result.reason}`);
  return result.quantity;
};

describe("parseQuantity: the Kubernetes quantity grammar", () => {
  it.each([
    ["500m", "", "500", "m", "DecimalSI"],
    ["2", "", "2", "", "DecimalSI"],
    ["0.5", "", "0.5", "", "DecimalSI"],
    ["4Gi", "", "4", "Gi", "BinarySI"],
    ["512Mi", "", "512", "Mi", "BinarySI"],
    ["10G", "", "10", "G", "DecimalSI"],
    ["1e3", "", "1", "e3", "DecimalExponent"],
    ["1E-3", "", "1", "E-3", "DecimalExponent"],
    ["1.5e+2", "", "1.5", "e+2", "DecimalExponent"],
    ["1E", "", "1", "E", "DecimalSI"],
    ["1Ei", "", "1", "Ei", "BinarySI"],
    ["+1k", "+", "1", "k", "DecimalSI"],
    ["-1", "-", "1", "", "DecimalSI"],
    ["5.", "", "5.", "", "DecimalSI"],
    [".5", "", ".5", "", "DecimalSI"],
    ["100n", "", "100", "n", "DecimalSI"],
    ["3u", "", "3", "u", "DecimalSI"],
  ])("accepts %s", (text, sign, number, suffix, format) => {
    expect(parsed(text)).toMatchObject({ sign, number, suffix, format });
  });

  it.each([
    ["", /empty/],
    ["4GB", /unknown suffix 'GB'/],
    ["abc", /does not start with a number/],
    ["Gi", /does not start with a number/],
    [".", /does not start with a number/],
    ["-", /does not start with a number/],
    ["+-1", /does not start with a number/],
    ["1.2.3", /does not start with a number/],
    ["1e", /unknown suffix 'e'/],
    ["1e1.5", /unknown suffix/],
    ["1K", /unknown suffix 'K'/],
    ["1ki", /unknown suffix 'ki'/],
    ["1mi", /unknown suffix 'mi'/],
    ["1 Gi", /whitespace/],
    [" 1", /whitespace/],
    ["1Gi ", /whitespace/],
    ["1e99999999999", /out of range/],
  ])("refuses %j", (text, reason) => {
    const result = parseQuantity(text);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it("tells zero and negative apart", () => {
    expect(parsed("0")).toMatchObject({ isZero: true, isNegative: false });
    expect(parsed("-0.0Gi")).toMatchObject({ isZero: true, isNegative: false });
    expect(parsed("-1m")).toMatchObject({ isZero: false, isNegative: true });
    expect(parsed("0.001")).toMatchObject({ isZero: false, isNegative: false });
  });

  it("knows whole quantities exactly", () => {
    for (const whole of ["1", "0.5Ki", "1.5Gi", "1000m", "2.5e3", "0.001k", "1e0", "0", "1E", "5."]) expect(isWholeQuantity(parsed(whole)), whole).toBe(true);
    for (const fraction of ["500m", "0.5", "1.0001k", "1e-1", "1e-999999999", "999m", "1u", ".1Ki"])
      expect(isWholeQuantity(parsed(fraction)), fraction).toBe(false);
  });
});

describe("checkResourceQuantity: what a template's resources accept", () => {
  it("accepts positive quantities, fractional CPUs included", () => {
    for (const cpu of ["500m", "0.5", "2", "1e3", "+1"]) expect(checkResourceQuantity("cpu", cpu)).toBeUndefined();
    for (const memory of ["512Mi", "4Gi", "10G", "1e9", "0.5Gi"]) expect(checkResourceQuantity("memory", memory)).toBeUndefined();
  });

  it("refuses zero, negatives and fractions of a byte", () => {
    expect(checkResourceQuantity("cpu", "0")).toMatch(/greater than zero/);
    expect(checkResourceQuantity("cpu", "-1")).toMatch(/greater than zero/);
    expect(checkResourceQuantity("storage", "-10Gi")).toMatch(/greater than zero/);
    expect(checkResourceQuantity("memory", "512m")).toMatch(/whole number of bytes.*did you mean 512Mi/);
    expect(checkResourceQuantity("storage", "0.5")).toMatch(/whole number of bytes/);
    expect(checkResourceQuantity("memory", "4GB")).toMatch(/unknown suffix/);
  });
});

// Generators that follow the grammar rule by rule, so a passing property means every production is accepted.
const digits = fc.stringMatching(/^\d{1,12}$/);
const sign = fc.constantFrom("" as const, "+" as const, "-" as const);
const number = fc.oneof(
  digits,
  fc.tuple(digits, digits).map(([a, b]) => `${a}.${b}`),
  digits.map((a) => `${a}.`),
  digits.map((b) => `.${b}`),
);
const exponent = fc.tuple(fc.constantFrom("e", "E"), sign, fc.integer({ min: 0, max: 2 ** 31 - 1 })).map(([e, s, n]) => `${e}${s}${n}`);
const suffix = fc.oneof(fc.constantFrom(...BINARY_SI_SUFFIXES), fc.constantFrom(...DECIMAL_SI_SUFFIXES), exponent);

describe("parseQuantity: properties", () => {
  it("parses every quantity the grammar generates, back into the same parts", () => {
    fc.assert(
      fc.property(sign, number, suffix, (s, n, x) => {
        const text = formatQuantity({ sign: s, number: n, suffix: x });
        const quantity = parsed(text);
        expect({ sign: quantity.sign, number: quantity.number, suffix: quantity.suffix }).toEqual({ sign: s, number: n, suffix: x });
        expect(quantity.isZero).toBe(!/[1-9]/.test(n));
        expect(formatQuantity(quantity)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });

  it("refuses any suffix outside the grammar", () => {
    const known = new Set<string>([...BINARY_SI_SUFFIXES, ...DECIMAL_SI_SUFFIXES]);
    const foreign = fc.string({ minLength: 1, maxLength: 4 }).filter((x) => !known.has(x) && !/^[eE][+-]?\d+$/.test(x) && !/^[\d.]/.test(x));
    fc.assert(
      fc.property(number, foreign, (n, x) => {
        expect(parseQuantity(`${n}${x}`).ok).toBe(false);
      }),
    );
  });

  it("counts an integer with a suffix of 1 or more as whole", () => {
    const upward = fc.oneof(
      fc.constantFrom(...BINARY_SI_SUFFIXES, "", "k", "M", "G", "T", "P", "E"),
      fc.integer({ min: 0, max: 400 }).map((n) => `e${n}`),
    );
    fc.assert(
      fc.property(digits, upward, (n, x) => {
        expect(isWholeQuantity(parsed(`${n}${x}`))).toBe(true);
      }),
    );
  });
});
