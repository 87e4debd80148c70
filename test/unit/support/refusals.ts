import { expect } from "vitest";
import { BadArgument } from "../../../tools/kit/args.ts";

/** The message `f` refuses its arguments with (a BadArgument); the test fails if `f` accepts them. */
export function refusalOf(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(BadArgument);
    return (error as Error).message;
  }
  throw new Error("the arguments were accepted");
}

/** Expects `parse` to refuse `argv` with a message that names `option` (first, or quoted). */
export function refuses(parse: (argv: string[]) => unknown, argv: string[], option: string): void {
  expect(refusalOf(() => parse(argv))).toMatch(new RegExp(`^${option}\\b|'${option}`));
}
