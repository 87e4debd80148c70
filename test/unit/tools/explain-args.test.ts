import { describe, expect, it } from "vitest";
import { BadArgument, refusal } from "../../../tools/kit/args.ts";
import { HELP, parseExplainArgs } from "../../../tools/explain-args.ts";
import { refusalOf } from "../support/refusals.ts";

describe("explain's arguments", () => {
  it("reads a request: method in any case, path without its query, headers in order", () => {
    expect(parseExplainArgs(["post", "/runs/query?x=1", "-H", "x-api-key: k", "-H", "X-Api-Key: j", "--region", "eu", "--ip", "2001:db8::1"])).toEqual({
      help: false,
      method: "POST",
      path: "/runs/query",
      headers: [
        ["x-api-key", "k"],
        ["X-Api-Key", "j"],
      ],
      region: "eu",
      ip: "2001:db8::1",
      secret: undefined,
      json: false,
    });
  });

  it.each([
    [["GET"], /^expected METHOD and PATH \(got 1 operand\)/],
    [["FOO", "/x"], /^METHOD: "FOO" is not one of GET, HEAD, POST/],
    [["GET", "runs/query"], /^PATH: "runs\/query" must start with "\/"/],
    [["GET", "/x", "--ip", "notanip"], /^--ip: "notanip" is not an IPv4 or IPv6 address/],
    [["GET", "/x", "--region", "mars"], /^--region: must be one of us, eu/],
    [["GET", "/x", "-H", "novalue"], /^--header: "novalue" is not "name: value"/],
    [["GET", "/x", "-H", "bad name: v"], /^--header: "bad name: v" is not "name: value"/],
    [["GET", "/x", "-H", "cf-connecting-ip: nope"], /^--header: cf-connecting-ip "nope" is not an IPv4 or IPv6 address/],
    [["GET", "/x", "--frobnicate"], /^Unknown option '--frobnicate'/],
  ])("refuses %j, naming what is wrong", (argv, message) => {
    expect(refusalOf(() => parseExplainArgs(argv))).toMatch(message);
  });

  it("prints a refusal as one line that says where the options are explained", () => {
    const line = refusal("explain", new BadArgument('--ip: "x" is not an IPv4 or IPv6 address'));
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toBe('explain: --ip: "x" is not an IPv4 or IPv6 address (npm run explain -- --help lists every option)');
  });

  it("has help that lists every option with an example", () => {
    expect(parseExplainArgs(["--help"]).help).toBe(true);
    for (const option of ["--header", "--region", "--ip", "--secret", "--json", "--help"]) expect(HELP).toContain(option);
    expect(HELP).toMatch(/examples:\n\s+npm run explain -- /);
  });
});
