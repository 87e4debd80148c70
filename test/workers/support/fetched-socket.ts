import { exports } from "cloudflare:workers";

/**
 * The part of a browser WebSocket the official client's socket transport uses (readyState, send,
 * close; open, message, close and error events), over a socket this runner's Worker (the gateway,
 * or an emulator in its own project) upgraded through its fetch: the Workers pool has no outbound
 * socket to it, so a client's `webSocketFactory` makes one of these instead of `new WebSocket(url)`.
 *
 * With `paceMs`, each frame from the server is handed to the client in a macrotask of its own,
 * `paceMs` after the one before, as frames cross a network: in-process they would arrive in one
 * burst, and a client's own timers (the 1.15 client pauses its projections one macrotask after a
 * run's end) would never fire between them. Without it, frames are handed on as they arrive.
 */
export class FetchedSocket extends EventTarget {
  readyState = 0;
  /** What the server closed with, if it did. */
  closedBy: { code: number; reason: string } | undefined;
  #socket: WebSocket | undefined;
  #done = false;
  #inbox: Array<() => void> = [];
  #pumping = false;
  readonly #paceMs: number | undefined;

  /** @param headers the upgrade request's headers, `Upgrade: websocket` included */
  constructor(url: string, headers: Record<string, string>, options: { paceMs?: number } = {}) {
    super();
    this.#paceMs = options.paceMs;
    void exports.default.fetch(new Request(url.replace(/^ws/, "http"), { headers })).then((res) => {
      if (res.status !== 101 || !res.webSocket) {
        this.dispatchEvent(new Event("error"));
        return this.#closed(1006, `upgrade answered ${res.status}`);
      }
      const socket = res.webSocket;
      socket.accept();
      this.#socket = socket;
      this.readyState = 1;
      socket.addEventListener("message", (event) =>
        this.#deliver(() => {
          if (!this.#done) this.dispatchEvent(new MessageEvent("message", { data: event.data }));
        }),
      );
      socket.addEventListener("close", (event) =>
        this.#deliver(() => {
          this.closedBy = { code: event.code, reason: event.reason };
          this.#closed(event.code, event.reason);
        }),
      );
      this.dispatchEvent(new Event("open"));
    });
  }

  send(data: string): void {
    this.#socket!.send(data);
  }

  close(code = 1000, reason = ""): void {
    this.#socket?.close(code, reason);
    this.#closed(code, reason);
  }

  /** The connection drops: the server sees the socket closed, the client an abnormal close (1006). */
  drop(): void {
    this.#socket?.close(1001, "dropped by the test");
    this.#closed(1006, "");
  }

  /** Hands what arrived to the client: at once, or in order one macrotask each (`paceMs`). */
  #deliver(step: () => void): void {
    if (this.#paceMs === undefined) return step();
    this.#inbox.push(step);
    if (this.#pumping) return;
    this.#pumping = true;
    void (async () => {
      while (this.#inbox.length > 0) {
        await new Promise((resolve) => setTimeout(resolve, this.#paceMs));
        if (!this.#done) this.#inbox.shift()!();
        else this.#inbox.length = 0;
      }
      this.#pumping = false;
    })();
  }

  #closed(code: number, reason: string): void {
    if (this.#done) return;
    this.#done = true;
    this.readyState = 3;
    this.dispatchEvent(new CloseEvent("close", { code, reason }));
  }
}
