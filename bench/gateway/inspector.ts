// A Chrome DevTools Protocol session with one Worker of a workerd started with an inspector port
// (Miniflare's `inspectorPort`): workerd lists one target per Worker at /json/list, each with its
// own WebSocket. Node's global WebSocket carries the protocol; nothing else is needed.

/** One entry of workerd's /json/list. */
export interface InspectorTarget {
  readonly id: string;
  readonly title: string;
  readonly webSocketDebuggerUrl: string;
}

/** A refusal or silence from the inspector, with the method that met it. */
export class InspectorError extends Error {
  override name = "InspectorError";
}

/** The Workers workerd's inspector at `port` offers. */
export async function inspectorTargets(port: number, host = "127.0.0.1"): Promise<InspectorTarget[]> {
  const response = await fetch(`http://${host}:${port}/json/list`);
  if (!response.ok) throw new InspectorError(`the inspector at ${host}:${port} answered /json/list with ${response.status}`);
  return (await response.json()) as InspectorTarget[];
}

/**
 * Pure: the target of the Worker called `worker`. workerd names each after its service
 * ("core:user:<worker>"), so the match is on that suffix, never a substring another Worker's name
 * could contain.
 */
export function targetOf(targets: readonly InspectorTarget[], worker: string): InspectorTarget {
  const found = targets.find(
    (t) => t.id === `core:user:${worker}` || t.title === `core:user:${worker}` || t.webSocketDebuggerUrl.endsWith(`/core:user:${worker}`),
  );
  if (!found) throw new InspectorError(`no inspector target for the Worker "${worker}" (found: ${targets.map((t) => t.id || t.title).join(", ") || "none"})`);
  return found;
}

interface Pending {
  readonly method: string;
  resolve(result: unknown): void;
  reject(error: Error): void;
}

/** One DevTools session: `send` a method, await its result. */
export class DevToolsSession {
  readonly #socket: WebSocket;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.addEventListener("message", (event) => this.#answer(String(event.data)));
    socket.addEventListener("close", () => this.#failAll("the inspector closed the session"));
  }

  /** Opens a session on `url` (a target's webSocketDebuggerUrl). */
  static open(url: string): Promise<DevToolsSession> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url);
      socket.addEventListener("open", () => resolve(new DevToolsSession(socket)), { once: true });
      socket.addEventListener("error", () => reject(new InspectorError(`could not open the inspector session at ${url}`)), { once: true });
    });
  }

  /** @throws InspectorError with the protocol's own message when the method is refused */
  send<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { method, resolve: resolve as (result: unknown) => void, reject });
      this.#socket.send(JSON.stringify({ id, method, params }));
    });
  }

  close(): void {
    this.#socket.close();
  }

  #answer(text: string): void {
    const message = JSON.parse(text) as { id?: number; result?: unknown; error?: { message: string } };
    // Events (no id) are not asked for here.
    if (message.id === undefined) return;
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    if (message.error) pending.reject(new InspectorError(`${pending.method}: ${message.error.message}`));
    else pending.resolve(message.result);
  }

  #failAll(why: string): void {
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.reject(new InspectorError(`${pending.method}: ${why}`));
    }
  }
}
