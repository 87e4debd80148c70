// Which operations of the control-plane reference document the emulator serves. Each one gets a
// request with a valid key straight to the emulator (this project's test Worker); an operation is
// served unless the answer is the emulator's not-found for unknown routes, `404 {"detail": "Not
// Found"}`. Every answer is also held to the contract (support.ts). An operation that is neither
// served nor listed in LEFT_OUT (with its reason) fails the test.
import { describe, expect, it } from "vitest";
import { operations } from "../contract/control-plane.ts";
import { CONTROL_PLANE_URL, controlPlaneFetch } from "./support.ts";

/**
 * Operations deliberately not served, each with why (docs/control-plane-deployments.md). Empty:
 * the emulator serves the whole document. An entry here that is served fails the test too.
 */
const LEFT_OUT: Readonly<Record<string, string>> = {};

type Operation = (typeof operations)[number];
const name = (op: Operation) => `${op.method} ${op.path}`;

/** A request for the operation: made-up path parameters, a fresh key, an empty JSON body where one may go. */
function requestFor(op: Operation): [string, RequestInit] {
  const path = op.path.replace(/\{(\w+)\}/g, () => crypto.randomUUID());
  const withBody = !["GET", "HEAD", "DELETE"].includes(op.method);
  const headers: Record<string, string> = { "x-api-key": `cp-probe-${crypto.randomUUID()}` };
  if (withBody) headers["content-type"] = "application/json";
  return [`${CONTROL_PLANE_URL}${path}`, { method: op.method, headers, body: withBody ? "{}" : undefined }];
}

async function served(op: Operation): Promise<boolean> {
  const res = await controlPlaneFetch(...requestFor(op));
  const text = await res.text();
  return !(res.status === 404 && text === JSON.stringify({ detail: "Not Found" }));
}

describe("operations of the control-plane reference document", () => {
  it("are the 39 the issue counts, each named once; every left-out one is in the document", () => {
    expect(operations).toHaveLength(39);
    expect(new Set(operations.map(name)).size).toBe(39);
    for (const op of Object.keys(LEFT_OUT)) expect(operations.map(name), op).toContain(op);
  });

  it("each is served by the emulator, or listed as left out with a reason, not both", async () => {
    const notServed: string[] = [];
    for (const op of operations) if (!(await served(op))) notServed.push(name(op));
    expect(notServed.sort()).toEqual(Object.keys(LEFT_OUT).sort());
  });
});
