import { RpcTarget } from "cloudflare:workers";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { parseJson } from "../storage.ts";
import type { EmulatorClock } from "../system/clock.ts";
import { matchesFilter } from "./filter.ts";
import { joinNamespace, listNamespaces, splitNamespace, startsWith, type Namespace } from "./namespace.ts";
import type { Item, SearchItem, StoreListNamespaces } from "./schema.ts";

type Row = {
  namespace: string;
  key: string;
  value: string;
  created_at: number;
  updated_at: number;
  ttl_minutes: number | null;
};

const MINUTE_MS = 60_000;

/** What a search looks for (the route has checked it). */
export interface ItemSearch {
  readonly prefix: Namespace;
  readonly filter: JsonObject | undefined;
  readonly limit: number;
  readonly offset: number;
  /** Whether reading restarts the TTL of the items found (absent: the store's default, yes). */
  readonly refreshTtl: boolean | undefined;
}

/**
 * The store: documents by (namespace, key), each with an optional TTL. An expired item is gone:
 * every call first deletes what has expired by the state object's clock, so nothing expired is
 * ever answered, and no sweeper is needed. Reading an item with a TTL restarts it (`refresh_ttl`,
 * on by default as in LangGraph's stores).
 */
export class ItemStore extends RpcTarget {
  readonly #sql: SqlStorage;
  readonly #clock: EmulatorClock;

  constructor(sql: SqlStorage, clock: EmulatorClock) {
    super();
    this.#sql = sql;
    this.#clock = clock;
  }

  /** PUT /store/items: creates or replaces the item; its TTL is the one given now (none: it never expires). */
  put(namespace: Namespace, key: string, value: JsonObject, ttlMinutes: number | undefined): void {
    const now = this.#sweep();
    this.#sql.exec(
      `INSERT INTO store_items (namespace, key, value, created_at, updated_at, ttl_minutes, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (namespace, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at, ttl_minutes = excluded.ttl_minutes, expires_at = excluded.expires_at`,
      joinNamespace(namespace),
      key,
      JSON.stringify(value),
      now,
      now,
      ttlMinutes ?? null,
      ttlMinutes === undefined ? null : now + ttlMinutes * MINUTE_MS,
    );
  }

  /** GET /store/items: the item, or null (as the real server answers a missing item). */
  get(namespace: Namespace, key: string, refreshTtl: boolean | undefined): Item | null {
    const now = this.#sweep();
    const row = this.#sql.exec<Row>("SELECT * FROM store_items WHERE namespace = ? AND key = ?", joinNamespace(namespace), key).toArray()[0];
    if (!row) return null;
    if (refreshTtl ?? true) this.#refresh([row], now);
    return this.#toItem(row);
  }

  /** DELETE /store/items: removes the item if there is one. */
  delete(namespace: Namespace, key: string): void {
    this.#sweep();
    this.#sql.exec("DELETE FROM store_items WHERE namespace = ? AND key = ?", joinNamespace(namespace), key);
  }

  /** POST /store/items/search: matching items, most recently updated first, one page. */
  search(query: ItemSearch): SearchItem[] {
    const now = this.#sweep();
    const page = this.#sql
      .exec<Row>("SELECT * FROM store_items ORDER BY updated_at DESC, namespace, key")
      .toArray()
      .filter((row) => startsWith(splitNamespace(row.namespace), query.prefix))
      .filter((row) => !query.filter || matchesFilter(parseJson(row.value), query.filter))
      .slice(query.offset, query.offset + query.limit);
    if (query.refreshTtl ?? true) this.#refresh(page, now);
    return page.map((row) => ({ ...this.#toItem(row), score: null }));
  }

  /** POST /store/namespaces. */
  namespaces(query: StoreListNamespaces): string[][] {
    this.#sweep();
    const all = this.#sql.exec<{ namespace: string }>("SELECT DISTINCT namespace FROM store_items").toArray();
    return listNamespaces(
      all.map((row) => splitNamespace(row.namespace)),
      { prefix: query.prefix, suffix: query.suffix, maxDepth: query.max_depth, limit: query.limit, offset: query.offset },
    );
  }

  /** Deletes the expired items; answers the clock's now, so a call reads the time once. */
  #sweep(): number {
    const now = this.#clock.now();
    this.#sql.exec("DELETE FROM store_items WHERE expires_at IS NOT NULL AND expires_at <= ?", now);
    return now;
  }

  #refresh(rows: readonly Row[], now: number): void {
    for (const row of rows) {
      if (row.ttl_minutes === null) continue;
      this.#sql.exec("UPDATE store_items SET expires_at = ? WHERE namespace = ? AND key = ?", now + row.ttl_minutes * MINUTE_MS, row.namespace, row.key);
    }
  }

  #toItem(row: Row): Item {
    return {
      namespace: splitNamespace(row.namespace),
      key: row.key,
      value: parseJson<JsonObject>(row.value),
      created_at: this.#clock.stamp(row.created_at),
      updated_at: this.#clock.stamp(row.updated_at),
    };
  }
}
