import type { ValidationError } from "./fastapi-errors.ts";

/** RFC 9457 problem type for an exhausted quota (IANA HTTP Problem Types registry). */
export const QUOTA_EXCEEDED = "https://iana.org/assignments/http-problem-types#quota-exceeded";

/**
 * Every error the gateway and its admin API answer, each kind with its status and its shape, in
 * this one table: a kind with a `title` is a problem (RFC 9457, `application/problem+json`); one
 * with `shape: "detail"` answers the hosted API's own `{"detail": ...}`, where the upstream would
 * have refused the request itself (a 400 of its framing) or a client reads FastAPI's shape; the
 * validation kind is FastAPI's 422 list. render-error.ts turns them into responses.
 */
const KINDS = {
  /** 400 `{"detail": "..."}`: what the upstream would read differently or refuse itself. */
  "bad-request": { status: 400, shape: "detail" },
  unauthorized: { status: 401, title: "Unauthorized" },
  forbidden: { status: 403, title: "Forbidden" },
  "not-found": { status: 404, title: "Not Found" },
  "unsupported-media-type": { status: 415, title: "Unsupported Media Type" },
  /** A host this gateway does not serve. */
  misdirected: { status: 421, title: "Misdirected Request" },
  /** 422 `{"detail": "..."}`: a well-formed request that cannot be answered (explain's refusal). */
  unprocessable: { status: 422, shape: "detail" },
  /** 422 `{"detail": [{loc, msg, type}]}`: FastAPI's validation errors; nothing was changed. */
  validation: { status: 422, shape: "validation" },
  /** An exhausted rule of the published table. */
  "quota-exceeded": { status: 429, title: "Request quota exceeded", type: QUOTA_EXCEEDED },
  /** The admin API's allowance of failed authentications is spent. */
  throttled: { status: 429, title: "Too Many Requests" },
  /** A setting (or the admin hosts) is wrong: the operator's to fix, named in the detail. */
  misconfigured: { status: 500, title: "Gateway misconfigured" },
  /** Anything unforeseen: says nothing of what (it is logged). */
  internal: { status: 500, shape: "detail" },
  "upstream-unreachable": { status: 502, title: "Upstream unreachable" },
  /** The counter object did not answer and the gateway fails closed. */
  "limiter-unavailable": { status: 503, title: "Rate limiter unavailable" },
  /** A setting the gateway may not serve without (a secret not yet put). */
  "not-ready": { status: 503, title: "Gateway not ready" },
  "upstream-timeout": { status: 504, title: "Upstream timed out" },
} as const satisfies Record<string, { status: number } & ({ title: string; type?: string } | { shape: "detail" | "validation" })>;

export type ErrorKind = keyof typeof KINDS;
/** How a kind answers: its status, and its problem title and type or its `{detail}` shape. */
export type KindShape = (typeof KINDS)[ErrorKind];

/** The status and shape of `kind`. */
export function kindShape(kind: ErrorKind): KindShape {
  return KINDS[kind];
}

export interface GatewayErrorOptions {
  /** Headers the answer carries besides its content type (Retry-After, WWW-Authenticate, the rate-limit headers). */
  readonly headers?: Readonly<Record<string, string>>;
  /** A problem's extension members, after `detail` (e.g. `violated-policies`). */
  readonly extensions?: Readonly<Record<string, unknown>>;
}

/**
 * An error with a kind, a detail a person can act on, and what its answer carries: thrown (or
 * rendered and returned, where a response must be counted first) by every surface that answers
 * HTTP, and made a response in one place (renderError).
 *
 * @example
 * throw new GatewayError("forbidden", `The token "${name}" is read-only.`);
 * throw new GatewayError("validation", [{ loc: ["body", "rule"], msg: "no rule 99", type: "value_error" }]);
 */
export class GatewayError extends Error {
  override name = "GatewayError";
  readonly kind: ErrorKind;
  readonly detail: string | readonly ValidationError[];
  readonly headers: Readonly<Record<string, string>>;
  readonly extensions: Readonly<Record<string, unknown>>;

  constructor(kind: "validation", detail: readonly ValidationError[], options?: GatewayErrorOptions);
  constructor(kind: Exclude<ErrorKind, "validation">, detail: string, options?: GatewayErrorOptions);
  constructor(kind: ErrorKind, detail: string | readonly ValidationError[], options: GatewayErrorOptions = {}) {
    // No stack trace: a GatewayError is an answer (a 429 to every request of a flood), rendered
    // without one (renderError), and capturing it was a tenth of a denied request's time.
    const v8 = Error as { stackTraceLimit?: number };
    const stackTraceLimit = v8.stackTraceLimit;
    v8.stackTraceLimit = 0;
    super(typeof detail === "string" ? detail : `${detail.length} validation error(s)`);
    v8.stackTraceLimit = stackTraceLimit;
    this.kind = kind;
    this.detail = detail;
    this.headers = options.headers ?? {};
    this.extensions = options.extensions ?? {};
  }

  get status(): number {
    return KINDS[this.kind].status;
  }
}
