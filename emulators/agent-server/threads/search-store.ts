import { RpcTarget } from "cloudflare:workers";
import { timestamp } from "../clock.ts";
import { ok, type Result } from "../../shared/result.ts";
import { contains } from "../storage.ts";
import type { Thread } from "./schema.ts";
import { extractValue, parseExtractPath } from "./extract.ts";
import type { ThreadFilter, ThreadPatch, ThreadSearch } from "./search-schema.ts";
import { notFound, type ThreadStore } from "./store.ts";

/** A page of threads and how many matched in all (for the pagination headers). */
export interface ThreadPage {
  readonly items: readonly (Partial<Thread> & { extracted?: Record<string, unknown> })[];
  readonly total: number;
}

/**
 * Searching, counting and patching threads. Threads are read through the thread store
 * (`find`), so a search answers each thread exactly as GET /threads/{thread_id} does.
 */
export class ThreadQueries extends RpcTarget {
  readonly #storage: DurableObjectStorage;
  readonly #threads: ThreadStore;

  constructor(storage: DurableObjectStorage, threads: ThreadStore) {
    super();
    this.#storage = storage;
    this.#threads = threads;
  }

  /** POST /threads/search: filtered, sorted (default: newest first), one page. */
  search(query: ThreadSearch): ThreadPage {
    const ids = query.ids ? new Set(query.ids) : undefined;
    const matches = this.#matching(query).filter(({ thread }) => !ids || ids.has(thread.thread_id));
    const by = query.sort_by ?? "created_at";
    const direction = (query.sort_order ?? "desc") === "desc" ? -1 : 1;
    matches.sort((a, b) => direction * (compare(a.thread[by], b.thread[by]) || a.seq - b.seq));
    const extracts = Object.entries(query.extract ?? {}).map(([alias, path]) => [alias, parseExtractPath(path)!] as const);
    const page = matches.slice(query.offset, query.offset + query.limit).map(({ thread }) => {
      const picked = pick(thread, query.select);
      if (extracts.length === 0) return picked;
      return {
        ...picked,
        extracted: Object.fromEntries(extracts.map(([alias, steps]) => [alias, extractValue(thread as unknown as Record<string, unknown>, steps)])),
      };
    });
    return { items: page, total: matches.length };
  }

  /** POST /threads/count. */
  count(filter: ThreadFilter): number {
    return this.#matching(filter).length;
  }

  /** PATCH /threads/{thread_id}: merges `metadata` into the thread's and stamps `updated_at`. */
  patch(id: string, change: ThreadPatch): Result<Thread> {
    return this.#storage.transactionSync(() => {
      const thread = this.#threads.find(id);
      if (!thread) return notFound(id);
      this.#storage.sql.exec(
        "UPDATE threads SET metadata = ?, updated_at = ? WHERE thread_id = ?",
        JSON.stringify({ ...thread.metadata, ...change.metadata }),
        timestamp(),
        id,
      );
      // A new TTL runs from now, as the document has it.
      this.#threads.setTtl(id, change.ttl);
      return ok(this.#threads.find(id)!);
    });
  }

  // Metadata and values filter as Postgres' `@>` does (storage.ts `contains`); status exactly.
  #matching(filter: ThreadFilter): { thread: Thread; seq: number }[] {
    return this.#storage.sql
      .exec<{ thread_id: string; seq: number }>("SELECT thread_id, rowid AS seq FROM threads")
      .toArray()
      .map(({ thread_id, seq }) => ({ thread: this.#threads.find(thread_id)!, seq }))
      .filter(({ thread }) => {
        if (filter.status !== undefined && thread.status !== filter.status) return false;
        if (filter.metadata && !contains(thread.metadata, filter.metadata)) return false;
        return !filter.values || contains(thread.values, filter.values);
      });
  }
}

function pick(thread: Thread, select: readonly string[] | undefined): Partial<Thread> {
  if (!select?.length) return thread;
  return Object.fromEntries(Object.entries(thread).filter(([key]) => select.includes(key)));
}

function compare(a: unknown, b: unknown): number {
  const x = String(a ?? "");
  const y = String(b ?? "");
  return x < y ? -1 : x > y ? 1 : 0;
}
