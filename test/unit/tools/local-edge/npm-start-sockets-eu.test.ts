// `npm run start:eu` as a user runs it: issue 42's socket limits in the EU region, the same suite
// as the US file (npm-start-socket-limits.ts), on an npm start of this file's own so the two
// regions run side by side.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type NpmStart, startNpmStart } from "./npm-start.ts";
import { describeSocketLimits } from "./npm-start-socket-limits.ts";

// In this file's own range, apart from the US file's and from other local runs.
const EDGE_PORT = 19600;
const PRIVATE_PORT = 19601;

let npmStart: NpmStart | undefined;
beforeAll(async () => {
  npmStart = await startNpmStart("eu", EDGE_PORT, PRIVATE_PORT);
}, 180_000);
afterAll(() => npmStart?.stop(), 60_000);
const started = () => npmStart!;

describe("npm run start:eu", () => {
  it("enforces the EU limits", () => {
    expect(started().startup).toContain("enforcing the EU limits");
  });
});

describe("npm run start:eu: a socket is no tunnel around the limits", () => {
  describeSocketLimits(started, "127.0.43");
});
