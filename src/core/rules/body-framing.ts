/*
 * A body on a GET or HEAD.
 *
 * The Fetch API, and with it a Worker's upstream call, cannot send a GET or HEAD with a body,
 * while the Starlette upstreams would read one. Forwarding such a request without its body would
 * have the upstream act on another request than the client sent, so the gateway refuses it (400,
 * before any counter or upstream: docs/rules.md, "What the gateway refuses, and why"). An empty
 * body (`Content-Length: 0`, or a chunked body that ends at once) is no body: the request is
 * forwarded without one.
 */
import type { HeaderReader } from "./read-request.ts";

/** The methods whose requests the gateway forwards without a body. */
export const BODILESS_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD"]);

/** Whether `method` is forwarded without a body (method names are case-sensitive; the runtime upper-cases GET and HEAD). */
export function isBodiless(method: string): boolean {
  return BODILESS_METHODS.has(method.toUpperCase());
}

/**
 * What the headers say of a request's body, where it matters: `refuse` for a GET or HEAD that
 * declares a body (`Content-Length` above 0), `read` for one whose body can only be told empty by
 * reading it (no length given: chunked), `forward` for anything else.
 *
 * @example
 * bodyFraming("GET", new Headers({ "content-length": "5" })); // "refuse"
 */
export function bodyFraming(method: string, headers: HeaderReader): "forward" | "read" | "refuse" {
  if (!isBodiless(method)) return "forward";
  const length = headers.get("content-length");
  if (length === null) return "read";
  // The runtime has refused a malformed length before the Worker sees it; a list is no length.
  return /^\s*0+\s*$/.test(length) ? "forward" : "refuse";
}

/** The 400's detail, in the API's own shape (`{"detail": ...}`). */
export function bodilessRefusal(method: string): string {
  const name = method.toUpperCase();
  return `A ${name} request must not carry a body: the gateway cannot forward one, and the upstream would act on another request than the one sent. Send the body with POST, or the parameters in the query.`;
}
