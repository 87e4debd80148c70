import { exports } from "cloudflare:workers";
import { freshCaller } from "./support.ts";

/**
 * The part of a browser WebSocket the official client's socket transport uses (readyState, send,
 * close; open, message, close and error events), over a socket the emulator Worker's fetch
 * upgraded. The Workers pool has no outbound socket to the emulator, so its `webSocketFactory`
 * makes one of these instead of `new WebSocket(url)`.
 *
 * Each frame from the server is handed to the client in a macrotask of its own, `paceMs` after
 * the one before, as frames cross a network: in-process they would arrive in one burst, and a
 * client's own timers (the 1.15 client pauses its projections one macrotask after a run's end)
 * would never fire between them.
 */
export class EmulatorSocket extends EventTarget {
  readyState = 0;
  /** What the server closed with, if it did. */
  closedBy: { code: number; reason: string } | undefined;
  #socket: WebSocket | undefined;
  #done = false;
  #inbox: Array<() => void> = [];
  #pumping = false;
  readonly #paceMs: number;

  constructor(url: string, paceMs = 5) {
    super();
    this.#paceMs = paceMs;
    void exports.default.fetch(new Request(url.replace(/^ws/, "http"), { headers: { upgrade: "websocket", ...freshCaller() } })).then((res) => {
      if (res.status !== 101 || !res.webSocket) {
        this.dispatchEvent(new Event("error"));
        return this.#closed(1006, `upgrade answered ${res.status}`);
      }
      const socket = res.webSocket;
      socket.accept();
      this.#socket = socket;
      this.readyState = 1;
      socket.addEventListener("message", (event) => this.#deliver(() => this.dispatchEvent(new MessageEvent("message", { data: event.data }))));
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

  /** Hands what arrived to the client in order, one macrotask each. */
  #deliver(step: () => void): void {
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
