import { CLOSE, readCommandFrame } from "../core/rules/socket-frames.ts";
import type { SocketRule } from "../core/rules/socket-rules.ts";
import { GatewayError } from "../http/gateway-error.ts";
import { downstreamHeaders } from "./hop-by-hop.ts";

/*
 * A WebSocket through the gateway (docs/rules.md, "WebSockets"): the upgrade was read, classified
 * and counted like any request (src/core/rules/websocket-upgrade.ts), under the socket rule of its
 * path (src/core/rules/socket-rules.ts); here it is asked of the upstream, and both ends are held
 * by the Worker: a socket carries calls, so each client frame is read and counted before the
 * upstream sees it. The upstream's frames pass to the client as they come, uncounted.
 */

/**
 * Makes the upstream request's headers a WebSocket upgrade: the client's `Upgrade` and `Connection`
 * were dropped as hop-by-hop headers (forwarded-headers.ts), so the upgrade is asked again in one
 * spelling, whatever the client's was (`WebSocket`, ` websocket `, any `Connection` list or none).
 * Given to a service binding's or the origin's `fetch`, it answers 101 with a `webSocket`.
 */
export function asWebSocketUpgrade(headers: Headers): void {
  headers.set("upgrade", "websocket");
  headers.set("connection", "Upgrade");
}

/** Counts one call a socket carries: resolves when admitted, rejects with the GatewayError a request would get. */
export type CountFrame = () => Promise<unknown>;

export interface SocketRelayOptions {
  readonly rule: SocketRule;
  readonly count: CountFrame;
  /** A socket across which nothing passed for this long is closed (CLOSE.idle). */
  readonly idleMs: number;
  /** Client frames waiting for their count at once; one more ends the socket (CLOSE.policyViolation). */
  readonly maxPending: number;
  /** Settles when the socket may no longer be held (its slot among the identity's open sockets was lost). */
  readonly lost?: Promise<void>;
  /** Called once, when the socket has ended on both sides. */
  readonly onEnd?: () => void;
}

/**
 * The client's 101: a socket of the gateway's own, relayed to the upstream's (`upstream.webSocket`),
 * with the upstream's headers as any response's (hop-by-hop ones dropped) and the rate-limit headers.
 */
export function relayedSocket(upstream: Response, extra: Readonly<Record<string, string>> | undefined, options: SocketRelayOptions): Response {
  const client = relay(upstream.webSocket!, options);
  return new Response(null, { status: 101, webSocket: client, headers: downstreamHeaders(upstream.headers, extra) });
}

/**
 * Joins the upstream's socket to a new pair and returns the pair's client end. Client frames are
 * handled one at a time, in order (a frame waits for the count of the one before it); upstream
 * frames, closes and errors pass at once. A close from either side is passed on with its code and
 * reason, and ends the relay.
 */
function relay(upstream: WebSocket, options: SocketRelayOptions): WebSocket {
  const { 0: client, 1: server } = new WebSocketPair();
  server.accept();
  upstream.accept();
  // Binary frames as bytes both ways (the standard default is Blob).
  server.binaryType = "arraybuffer";
  upstream.binaryType = "arraybuffer";

  let ended = false;
  let pending = 0;
  let chain: Promise<void> = Promise.resolve();
  let lastFrameAt = Date.now();
  let idleTimer: ReturnType<typeof setTimeout> | undefined;

  const end = (toClient: Close, toUpstream: Close) => {
    if (ended) return;
    ended = true;
    if (idleTimer !== undefined) clearTimeout(idleTimer);
    closeQuietly(server, toClient);
    closeQuietly(upstream, toUpstream);
    options.onEnd?.();
  };
  // The other side's close is passed on as it came; 1005 and 1006 say no code was sent, and are never sent.
  const passOn = (event: CloseEvent): Close => (event.code === 1005 || event.code === 1006 ? {} : { code: event.code, reason: event.reason });

  const watchIdle = () => {
    const quietFor = Date.now() - lastFrameAt;
    if (quietFor >= options.idleMs) {
      const reason = `No frame crossed the socket for ${Math.round(options.idleMs / 1000)} s.`;
      return end({ code: CLOSE.idle, reason }, { code: 1001, reason });
    }
    idleTimer = setTimeout(watchIdle, options.idleMs - quietFor);
  };
  idleTimer = setTimeout(watchIdle, options.idleMs);

  upstream.addEventListener("message", (event) => {
    lastFrameAt = Date.now();
    sendQuietly(server, event.data as string | ArrayBuffer);
  });
  // A dropped upstream connection arrives as a close 1006 (no close frame), never an error event: it failed.
  upstream.addEventListener("close", (event) =>
    end(event.code === 1006 ? { code: CLOSE.internalError, reason: "The upstream's socket failed." } : passOn(event), {}),
  );
  upstream.addEventListener("error", () => end({ code: CLOSE.internalError, reason: "The upstream's socket failed." }, {}));
  server.addEventListener("close", (event) => end({}, passOn(event)));
  server.addEventListener("error", () => end({}, { code: 1001, reason: "The client's socket failed." }));
  server.addEventListener("message", (event) => {
    lastFrameAt = Date.now();
    if (ended) return;
    if (++pending > options.maxPending) {
      const reason = `More than ${options.maxPending} frames were waiting to be counted.`;
      return end({ code: CLOSE.policyViolation, reason }, { code: 1001, reason });
    }
    const data = event.data as string | ArrayBuffer;
    chain = chain
      .then(() => clientFrame(data))
      .catch((error: unknown) => {
        console.log(JSON.stringify({ event: "socket_frame_failure", error: String(error) }));
        end({ code: CLOSE.internalError, reason: "The gateway failed on this frame." }, { code: 1001 });
      })
      .finally(() => pending--);
  });
  options.lost?.then(() => {
    const reason = "This socket's place among its caller's open sockets lapsed; open it again.";
    end({ code: CLOSE.tryAgainLater, reason }, { code: 1001, reason });
  });

  const clientFrame = async (data: string | ArrayBuffer): Promise<void> => {
    if (ended) return;
    const frame = options.rule.protocol === "agent-protocol-v2" ? readCommandFrame(data) : undefined;
    if (frame?.kind === "end") return end({ code: frame.code, reason: frame.reason }, { code: 1001, reason: frame.reason });
    let refusal: GatewayError | undefined;
    try {
      await options.count();
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      refusal = error;
    }
    if (ended) return;
    if (!frame) {
      // `frames`: no in-band answer exists for an unknown protocol, so a refused frame ends the socket.
      if (refusal) end({ code: CLOSE.quotaExceeded, reason: closeReason(refusal) }, { code: 1001, reason: "The client's frame was refused." });
      else sendQuietly(upstream, data);
    } else if (refusal) {
      sendQuietly(server, JSON.stringify(refusedCommand(frame.kind === "call" ? frame.id : null, refusal)));
    } else if (frame.kind === "unreadable") {
      sendQuietly(server, JSON.stringify({ type: "error", id: null, error: "invalid_argument", message: frame.message }));
    } else {
      sendQuietly(upstream, data);
    }
  };

  return client;
}

/**
 * A refused command's in-band answer: the protocol's ProtocolError, its code from the
 * description's list (`permission_denied`: the gateway withholds the command), the refusal's
 * detail as its message, and what the HTTP twin's answer would say in extension members.
 */
export function refusedCommand(id: number | null, refusal: GatewayError): Record<string, unknown> {
  const retryAfter = refusal.headers["retry-after"];
  return {
    type: "error",
    id,
    error: refusal.status === 503 ? "unknown_error" : "permission_denied",
    message: typeof refusal.detail === "string" ? refusal.detail : refusal.message,
    status: refusal.status,
    ...(retryAfter !== undefined && { retry_after: Number(retryAfter) }),
    ...(refusal.headers["ratelimit-policy"] !== undefined && { ratelimit_policy: refusal.headers["ratelimit-policy"] }),
    ...(refusal.headers.ratelimit !== undefined && { ratelimit: refusal.headers.ratelimit }),
  };
}

interface Close {
  readonly code?: number;
  readonly reason?: string;
}

/** A close reason is at most 123 bytes (RFC 6455 5.5): the refusal's status and when to come back. */
function closeReason(refusal: GatewayError): string {
  const retryAfter = refusal.headers["retry-after"];
  return `${refusal.status}${retryAfter === undefined ? "" : `; retry after ${retryAfter} s`}`;
}

function closeQuietly(socket: WebSocket, { code, reason }: Close): void {
  try {
    if (code === undefined) socket.close();
    else socket.close(code, truncateReason(reason ?? ""));
  } catch {
    // Already closed or closing.
  }
}

function sendQuietly(socket: WebSocket, data: string | ArrayBuffer): void {
  try {
    socket.send(data);
  } catch {
    // The socket closed meanwhile: its close event ends the relay.
  }
}

/** Cuts a reason to 123 UTF-8 bytes without splitting a character. */
function truncateReason(reason: string): string {
  const bytes = new TextEncoder().encode(reason);
  if (bytes.byteLength <= 123) return reason;
  return new TextDecoder().decode(bytes.slice(0, 123)).replace(/\uFFFD$/, "");
}
