/** RFC 9457 problem details: the shape of every error the gateway and its admin API make themselves. */
export interface Problem {
  readonly type?: string;
  readonly title: string;
  readonly status: number;
  /** Always a string a person can act on; clients that only read `detail` keep working. */
  readonly detail: string;
  readonly [extension: string]: unknown;
}

/**
 * An `application/problem+json` response. `type` defaults to "about:blank" as RFC 9457 says.
 * Made by renderError (render-error.ts) from a GatewayError, nowhere else.
 */
export function problemResponse(problem: Problem, headers: Readonly<Record<string, string>> = {}): Response {
  const body = { type: "about:blank", ...problem };
  // The headers handed over in one go (each set on a made Response crosses into the runtime);
  // the caller's come after the content type, as set on it they would.
  return new Response(JSON.stringify(body), { status: problem.status, headers: { "content-type": "application/problem+json", ...headers } });
}
