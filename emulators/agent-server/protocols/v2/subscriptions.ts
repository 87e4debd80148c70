import { parseJson } from "../../storage.ts";
import type { EventFilter } from "./filter.ts";

/**
 * How many subscriptions one socket may hold, and how many bytes of filters (their JSON) in all.
 * The 1.15 client holds one per projection it reads (values, messages, tools, lifecycle...), about
 * ten, each a few channels and namespaces: the bounds are far above any client's and keep a socket
 * from making the object hold (and match every event against) an unbounded list. Beyond them a
 * subscribe is answered `invalid_argument` (docs/agent-server.md, "Protocol v2").
 */
export const MAX_SUBSCRIPTIONS_PER_SOCKET = 64;
export const MAX_FILTER_BYTES_PER_SOCKET = 64 * 1024;

export interface Subscription {
  readonly id: string;
  readonly filter: EventFilter;
  readonly bytes: number;
}

type Row = { subscription_id: string; filter: string; bytes: number };

/**
 * The sockets' subscriptions, in the state object's SQLite by socket id, and in its memory for the
 * sockets it has read since it last woke. Not in the socket's attachment: that holds 16 KB at most
 * and is rewritten whole on every change, where a socket may hold 64 KB of filters. Storage
 * outlives the object's hibernation, so a woken object finds each socket's subscriptions again; a
 * socket's rows go when it closes or errors, when its thread is deleted, and (for a close the
 * object never heard, as when it was evicted meanwhile) when the object starts and finds the
 * socket gone.
 */
export class SocketSubscriptions {
  readonly #sql: SqlStorage;
  readonly #cache = new Map<string, Subscription[]>();

  constructor(sql: SqlStorage) {
    this.#sql = sql;
    sql.exec(
      `CREATE TABLE IF NOT EXISTS protocol_subscriptions (
         socket_id TEXT NOT NULL, subscription_id TEXT NOT NULL, thread_id TEXT NOT NULL, filter TEXT NOT NULL, bytes INTEGER NOT NULL,
         PRIMARY KEY (socket_id, subscription_id))`,
    );
  }

  /** The socket's subscriptions, oldest first. */
  of(socketId: string): readonly Subscription[] {
    let list = this.#cache.get(socketId);
    if (!list) {
      list = this.#sql
        .exec<Row>("SELECT subscription_id, filter, bytes FROM protocol_subscriptions WHERE socket_id = ? ORDER BY rowid", socketId)
        .toArray()
        .map((row) => ({ id: row.subscription_id, filter: parseJson<EventFilter>(row.filter), bytes: row.bytes }));
      this.#cache.set(socketId, list);
    }
    return list;
  }

  /** Adds a subscription, or says which bound it would pass. */
  add(socketId: string, threadId: string, filter: EventFilter): { readonly ok: true; readonly id: string } | { readonly ok: false; readonly message: string } {
    const list = this.of(socketId);
    if (list.length >= MAX_SUBSCRIPTIONS_PER_SOCKET)
      return { ok: false, message: `A socket holds at most ${MAX_SUBSCRIPTIONS_PER_SOCKET} subscriptions: unsubscribe one first.` };
    const json = JSON.stringify(filter);
    const bytes = new TextEncoder().encode(json).byteLength;
    const held = list.reduce((sum, s) => sum + s.bytes, 0);
    if (held + bytes > MAX_FILTER_BYTES_PER_SOCKET) {
      return {
        ok: false,
        message: `A socket's subscription filters hold at most ${MAX_FILTER_BYTES_PER_SOCKET / 1024} KB of JSON in all (this one ${bytes} bytes, ${held} held): unsubscribe first, or filter less.`,
      };
    }
    const id = `sub-${crypto.randomUUID()}`;
    this.#sql.exec(
      "INSERT INTO protocol_subscriptions (socket_id, subscription_id, thread_id, filter, bytes) VALUES (?, ?, ?, ?, ?)",
      socketId,
      id,
      threadId,
      json,
      bytes,
    );
    this.#cache.set(socketId, [...list, { id, filter, bytes }]);
    return { ok: true, id };
  }

  /** Removes one; whether the socket had it. */
  remove(socketId: string, subscriptionId: string): boolean {
    const list = this.of(socketId);
    if (!list.some((s) => s.id === subscriptionId)) return false;
    this.#sql.exec("DELETE FROM protocol_subscriptions WHERE socket_id = ? AND subscription_id = ?", socketId, subscriptionId);
    this.#cache.set(
      socketId,
      list.filter((s) => s.id !== subscriptionId),
    );
    return true;
  }

  /** A socket that closed takes its subscriptions with it. */
  forget(socketId: string): void {
    this.#sql.exec("DELETE FROM protocol_subscriptions WHERE socket_id = ?", socketId);
    this.#cache.delete(socketId);
  }

  /** Forgets every socket but these (the object's open sockets when it starts). */
  keepOnly(socketIds: ReadonlySet<string>): void {
    const stored = this.#sql.exec<{ socket_id: string }>("SELECT DISTINCT socket_id FROM protocol_subscriptions").toArray();
    for (const { socket_id } of stored) if (!socketIds.has(socket_id)) this.forget(socket_id);
  }
}
