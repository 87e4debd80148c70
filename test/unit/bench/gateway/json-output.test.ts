import { describe, expect, it } from "vitest";
import { withStdoutOnStderr, type Writable } from "../../../../bench/gateway/json-output.ts";

/** A stream that keeps what is written to it. */
function recording(): Writable & { readonly text: string[] } {
  const text: string[] = [];
  return { text, write: ((chunk: string) => (text.push(chunk), true)) as Writable["write"] };
}

describe("withStdoutOnStderr", () => {
  it("sends what the run writes to stdout to stderr, and gives stdout back afterwards", async () => {
    const stdout = recording();
    const stderr = recording();
    const own = stdout.write;
    const result = await withStdoutOnStderr(
      async () => {
        (stdout.write as (chunk: string) => boolean)("Using secrets defined in .dev.vars\n");
        return 42;
      },
      stdout,
      stderr,
    );
    expect(result).toBe(42);
    expect(stderr.text).toEqual(["Using secrets defined in .dev.vars\n"]);
    expect(stdout.text).toEqual([]);
    expect(stdout.write).toBe(own);
  });

  it("gives stdout back when the run fails", async () => {
    const stdout = recording();
    const own = stdout.write;
    await expect(withStdoutOnStderr(() => Promise.reject(new Error("no target")), stdout, recording())).rejects.toThrow("no target");
    expect(stdout.write).toBe(own);
  });
});
