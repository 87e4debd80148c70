import { RpcTarget } from "cloudflare:workers";
import { timestamp } from "../clock.ts";
import { checkContext } from "../graphs/context.ts";
import { findGraph, graphIds } from "../graphs/registry.ts";
import type { JsonObject } from "../../shared/pydantic/json.ts";
import { invalid, ok, refuse, type Result } from "../../shared/result.ts";
import { contains, parseJson } from "../storage.ts";
import type { Assistant, AssistantCreate, AssistantFilter, AssistantPatch, AssistantSearch, AssistantVersion, AssistantVersionsSearch } from "./schema.ts";

type Row = {
  assistant_id: string;
  system: number;
  created_at: string;
  updated_at: string;
  version: number;
  graph_id: string;
  name: string;
  description: string | null;
  config: string;
  context: string;
  metadata: string;
  version_created_at: string;
};

// An assistant is shown as its active version, with the assistant's own timestamps.
const SELECT_ACTIVE = `SELECT a.assistant_id, a.system, a.created_at, a.updated_at, a.rowid AS seq,
    v.version, v.graph_id, v.name, v.description, v.config, v.context, v.metadata, v.created_at AS version_created_at
  FROM assistants a JOIN assistant_versions v ON v.assistant_id = a.assistant_id AND v.version = a.active_version`;

/** A page of search results and how many matched in all (for the pagination headers). */
export interface AssistantPage {
  readonly items: readonly Partial<Assistant>[];
  readonly total: number;
}

/**
 * Assistants and their versions. Every method is synchronous SQL, so each call runs whole before
 * the object takes the next one: concurrent PATCHes get consecutive version numbers.
 */
export class AssistantStore extends RpcTarget {
  readonly #storage: DurableObjectStorage;

  /** Deletes one thread the way DELETE /threads/{id} does (its runs stop, checkpoints and events go). */
  readonly #deleteThread: (threadId: string) => void;

  constructor(storage: DurableObjectStorage, deleteThread: (threadId: string) => void) {
    super();
    this.#storage = storage;
    this.#deleteThread = deleteThread;
  }

  /** POST /assistants: version 1 of a new assistant, or the existing one with `if_exists: do_nothing`. */
  create(id: string, input: AssistantCreate): Result<Assistant> {
    const graph = findGraph(input.graph_id);
    if (!graph) return unknownGraph(input.graph_id);
    const context = input.context ?? {};
    const errors = checkContext(graph, context);
    if (errors.length) return invalid(errors);
    return this.#storage.transactionSync(() => {
      const existing = this.find(id);
      if (existing) {
        return input.if_exists === "do_nothing"
          ? ok(existing)
          : refuse(409, `Assistant ${id} already exists. Send "if_exists": "do_nothing" to get the existing assistant instead.`);
      }
      const now = timestamp();
      this.#sql.exec("INSERT INTO assistants (assistant_id, active_version, system, created_at, updated_at) VALUES (?, 1, 0, ?, ?)", id, now, now);
      this.#insertVersion(id, 1, {
        graph_id: graph.graphId,
        // An empty name is no name: the graph id, as for the default assistants.
        name: input.name || graph.graphId,
        description: input.description ?? null,
        config: input.config ?? {},
        context,
        metadata: input.metadata ?? {},
        created_at: now,
      });
      return ok(this.find(id)!);
    });
  }

  /** GET /assistants/{id}. */
  get(id: string): Result<Assistant> {
    const assistant = this.find(id);
    return assistant ? ok(assistant) : notFound(id);
  }

  /**
   * PATCH /assistants/{id}: stores version max+1 built from the active version and the fields
   * given (each replaced whole; `metadata` merged key by key) and makes it active.
   */
  patch(id: string, change: AssistantPatch): Result<Assistant> {
    return this.#storage.transactionSync(() => {
      const current = this.find(id);
      if (!current) return notFound(id);
      if (this.#isSystem(id)) return systemAssistant(id, current.graph_id, "updated");
      const graphId = change.graph_id ?? current.graph_id;
      const graph = findGraph(graphId);
      if (!graph) return unknownGraph(graphId);
      const context = change.context ?? current.context;
      const errors = checkContext(graph, context);
      if (errors.length) return invalid(errors);
      const next = this.#sql.exec<{ next: number }>("SELECT MAX(version) + 1 AS next FROM assistant_versions WHERE assistant_id = ?", id).one().next;
      const now = timestamp();
      this.#insertVersion(id, next, {
        graph_id: graphId,
        name: change.name || current.name,
        description: change.description ?? current.description,
        config: change.config ?? current.config,
        context,
        metadata: change.metadata ? { ...current.metadata, ...change.metadata } : current.metadata,
        created_at: now,
      });
      this.#sql.exec("UPDATE assistants SET active_version = ?, updated_at = ? WHERE assistant_id = ?", next, now, id);
      return ok(this.find(id)!);
    });
  }

  /** POST /assistants/{id}/latest: makes an existing version the active one. */
  setLatest(id: string, version: number): Result<Assistant> {
    return this.#storage.transactionSync(() => {
      const current = this.find(id);
      if (!current) return notFound(id);
      if (this.#isSystem(id)) return systemAssistant(id, current.graph_id, "switched to another version");
      const range = this.#sql
        .exec<{ newest: number; count: number }>("SELECT MAX(version) AS newest, COUNT(*) AS count FROM assistant_versions WHERE assistant_id = ?", id)
        .one();
      const exists = this.#sql.exec("SELECT 1 FROM assistant_versions WHERE assistant_id = ? AND version = ?", id, version).toArray().length > 0;
      if (!exists) return refuse(404, `Assistant ${id} has no version ${version}; its versions are 1 to ${range.newest}.`);
      this.#sql.exec("UPDATE assistants SET active_version = ?, updated_at = ? WHERE assistant_id = ?", version, timestamp(), id);
      return ok(this.find(id)!);
    });
  }

  /** POST /assistants/{id}/versions: newest first, filtered by metadata, one page. */
  versions(id: string, query: AssistantVersionsSearch): Result<AssistantVersion[]> {
    if (!this.find(id)) return notFound(id);
    const rows = this.#sql
      .exec<Omit<Row, "system" | "updated_at" | "version_created_at">>(
        "SELECT assistant_id, version, graph_id, name, description, config, context, metadata, created_at FROM assistant_versions WHERE assistant_id = ? ORDER BY version DESC",
        id,
      )
      .toArray();
    const versions = rows
      .map((row): AssistantVersion => ({
        assistant_id: row.assistant_id,
        graph_id: row.graph_id,
        config: parseJson(row.config),
        context: parseJson(row.context),
        metadata: parseJson(row.metadata),
        version: row.version,
        name: row.name,
        description: row.description,
        created_at: row.created_at,
        // A version is never changed after it is stored.
        updated_at: row.created_at,
      }))
      .filter((v) => !query.metadata || contains(v.metadata, query.metadata));
    return ok(versions.slice(query.offset, query.offset + query.limit));
  }

  /** POST /assistants/search: filtered, sorted (default: newest first), one page. */
  search(query: AssistantSearch): AssistantPage {
    const matches = this.#matching(query);
    const by = query.sort_by ?? "created_at";
    const direction = (query.sort_order ?? "desc") === "desc" ? -1 : 1;
    matches.sort((a, b) => direction * (compare(a.assistant[by], b.assistant[by]) || a.seq - b.seq));
    const page = matches.slice(query.offset, query.offset + query.limit).map(({ assistant }) => pick(assistant, query.select));
    return { items: page, total: matches.length };
  }

  /** POST /assistants/count. */
  count(filter: AssistantFilter): number {
    return this.#matching(filter).length;
  }

  /**
   * DELETE /assistants/{id}: the assistant and all its versions; with `deleteThreads`, also the
   * threads whose `metadata.assistant_id` names it (runs stamp that on their thread).
   */
  delete(id: string, deleteThreads: boolean): Result<{ deleted_threads: number }> {
    return this.#storage.transactionSync(() => {
      const current = this.find(id);
      if (!current) return notFound(id);
      if (this.#isSystem(id)) return systemAssistant(id, current.graph_id, "deleted");
      this.#sql.exec("DELETE FROM assistant_versions WHERE assistant_id = ?", id);
      this.#sql.exec("DELETE FROM assistants WHERE assistant_id = ?", id);
      let deleted = 0;
      if (deleteThreads) {
        // Through the thread store, so a thread's runs, checkpoints and events go with it.
        const threads = this.#sql.exec<{ thread_id: string }>("SELECT thread_id FROM threads WHERE json_extract(metadata, '$.assistant_id') = ?", id).toArray();
        for (const { thread_id } of threads) this.#deleteThread(thread_id);
        deleted = threads.length;
      }
      return ok({ deleted_threads: deleted });
    });
  }

  /** The assistant (its active version), or undefined. Also used by the run store. */
  find(id: string): Assistant | undefined {
    const row = this.#sql.exec<Row>(`${SELECT_ACTIVE} WHERE a.assistant_id = ?`, id).toArray()[0];
    return row ? toAssistant(row) : undefined;
  }

  #matching(filter: AssistantFilter): { assistant: Assistant; seq: number }[] {
    const name = filter.name?.toLowerCase();
    return this.#sql
      .exec<Row & { seq: number }>(SELECT_ACTIVE)
      .toArray()
      .map((row) => ({ assistant: toAssistant(row), seq: row.seq }))
      .filter(({ assistant }) => {
        if (filter.graph_id !== undefined && assistant.graph_id !== filter.graph_id) return false;
        if (name !== undefined && !assistant.name.toLowerCase().includes(name)) return false;
        return !filter.metadata || contains(assistant.metadata, filter.metadata);
      });
  }

  #isSystem(id: string): boolean {
    return this.#sql.exec<{ system: number }>("SELECT system FROM assistants WHERE assistant_id = ?", id).one().system === 1;
  }

  #insertVersion(id: string, version: number, v: Omit<AssistantVersion, "assistant_id" | "version" | "updated_at">): void {
    this.#sql.exec(
      `INSERT INTO assistant_versions (assistant_id, version, graph_id, name, description, config, context, metadata, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      id,
      version,
      v.graph_id,
      v.name,
      v.description,
      JSON.stringify(v.config),
      JSON.stringify(v.context),
      JSON.stringify(v.metadata),
      v.created_at,
    );
  }

  get #sql(): SqlStorage {
    return this.#storage.sql;
  }
}

function toAssistant(row: Row): Assistant {
  return {
    assistant_id: row.assistant_id,
    graph_id: row.graph_id,
    config: parseJson(row.config),
    context: parseJson(row.context),
    metadata: parseJson<JsonObject>(row.metadata),
    version: row.version,
    name: row.name,
    description: row.description,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function pick(assistant: Assistant, select: readonly (keyof Assistant)[] | undefined): Partial<Assistant> {
  if (!select?.length) return assistant;
  return Object.fromEntries(Object.entries(assistant).filter(([key]) => select.includes(key as keyof Assistant)));
}

function compare(a: unknown, b: unknown): number {
  const x = String(a ?? "");
  const y = String(b ?? "");
  return x < y ? -1 : x > y ? 1 : 0;
}

const notFound = (id: string) => refuse(404, `Assistant ${id} not found.`);

const unknownGraph = (graphId: string) =>
  refuse(
    404,
    `Graph '${graphId}' not found. Deployed graphs: ${graphIds()
      .map((g) => `'${g}'`)
      .join(", ")}.`,
  );

// A graph id means its default assistant wherever an assistant id is accepted, so changing it
// would silently change what every run-by-graph-id does; the emulator keeps them fixed.
const systemAssistant = (id: string, graphId: string, verb: string) =>
  refuse(
    409,
    `Assistant ${id} is the default assistant of graph '${graphId}' (created_by: system) and cannot be ${verb}. Create your own with POST /assistants {"graph_id": "${graphId}"}.`,
  );
