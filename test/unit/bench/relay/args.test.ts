import { describe, expect, it } from "vitest";
import { BadArgument } from "../../../../tools/kit/args.ts";
import { MAX_SOCKETS, parseRelayArgs, socketLevels } from "../../../../bench/relay/args.ts";

describe("parseRelayArgs", () => {
  it("has defaults that finish in about a minute", () => {
    expect(parseRelayArgs([])).toEqual({ rounds: 2, frames: 5000, sockets: [200, 1000], json: false, pin: true, help: false });
  });

  it("reads every option", () => {
    expect(parseRelayArgs(["--rounds", "3", "--frames", "800", "--sockets", "50", "--before", "HEAD~1", "--no-pin", "--json"])).toEqual({
      rounds: 3,
      frames: 800,
      sockets: [50],
      before: "HEAD~1",
      json: true,
      pin: false,
      help: false,
    });
  });

  it("refuses a count that is not a whole number from 1, naming the option", () => {
    expect(() => parseRelayArgs(["--frames", "0"])).toThrow(/^--frames/);
    expect(() => parseRelayArgs(["--rounds", "1.5"])).toThrow(BadArgument);
    expect(() => parseRelayArgs(["--before", " "])).toThrow(/^--before/);
    expect(() => parseRelayArgs(["--what"])).toThrow(BadArgument);
  });
});

describe("socketLevels", () => {
  it("reads a list as ascending levels, each once", () => {
    expect(socketLevels("1000, 200,200")).toEqual([200, 1000]);
    expect(socketLevels("7")).toEqual([7]);
  });

  it("refuses a level that is no whole count, or more than a process should hold", () => {
    expect(() => socketLevels("0")).toThrow(/^--sockets/);
    expect(() => socketLevels("200,x")).toThrow(/^--sockets/);
    expect(() => socketLevels(String(MAX_SOCKETS + 1))).toThrow(/^--sockets: must be at most/);
  });
});
