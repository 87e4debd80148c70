import { GatewayError } from "../http/gateway-error.ts";
import { bodilessRefusal, bodyFraming } from "../core/rules/body-framing.ts";

/**
 * Refuses a GET or HEAD carrying a body (src/core/rules/body-framing.ts) with 400 `{"detail": ...}`,
 * before anything counts it. A declared length decides at once; a body without one (chunked) is
 * read up to its first byte, which only a GET or HEAD pays. An empty one passes: the proxy
 * forwards every GET and HEAD without a body.
 *
 * @example
 * await refuseBodyOnBodiless(c.req.raw); // throws GatewayError bad-request (400) for `GET /x` with "hello"
 */
export async function refuseBodyOnBodiless(raw: Request): Promise<void> {
  const framing = bodyFraming(raw.method, raw.headers);
  if (framing === "forward") return;
  if (framing === "refuse" || (raw.body !== null && (await carriesData(raw.body)))) {
    throw new GatewayError("bad-request", bodilessRefusal(raw.method));
  }
}

/** Whether the stream holds a byte; stops reading at the first one. */
async function carriesData(body: ReadableStream<Uint8Array>): Promise<boolean> {
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return false;
    if (value.byteLength > 0) {
      await reader.cancel();
      return true;
    }
  }
}
