import { runInDurableObject } from "cloudflare:test";
import { stateOf } from "../../../emulators/agent-server/state-access.ts";
import { agentServerEnv, controlPlaneEnv, THIS_EMULATOR } from "./emulator-env.ts";

/** What one Durable Object has stored: per SQLite table its row count and a digest of its rows. */
export interface ObjectState {
  readonly tables: Readonly<Record<string, { readonly rows: number; readonly sha256: string }>>;
  /** Key-value storage and the alarm, which live outside the tables. */
  readonly kv: string;
  readonly alarm: number | null;
  /** Every value of every `id` / `*_id` column, by `table.column`, to aim requests at real objects. */
  readonly ids: Readonly<Record<string, readonly string[]>>;
}

/**
 * The stored state of the emulators: the agent server's one object and one control-plane
 * workspace. Each emulator's own project reads its own; the other's stays empty.
 */
export interface EmulatorState {
  readonly agentServer: ObjectState;
  readonly workspace: ObjectState;
}

/**
 * What a snapshot does in the object first, in the same call: brings it to rest (the fuzz test), so
 * a request that only settles and reads costs one call into the object, not several.
 */
// The instance is typed `any`: each emulator's object class is its own type.
export type Settle = (instance: any, state: DurableObjectState) => unknown;

/** Reads this project's emulator's storage from inside its Durable Objects (never through its API), after `settle`. */
export async function snapshotEmulators(workspaceId: string, settle: Settle = () => undefined): Promise<EmulatorState> {
  const read: Settle = async (instance, state) => {
    await settle(instance, state);
    return dump(state);
  };
  if (THIS_EMULATOR === "agent-server") return { agentServer: (await runInDurableObject(stateOf(agentServerEnv), read)) as ObjectState, workspace: NOTHING };
  return {
    agentServer: NOTHING,
    workspace: (await runInDurableObject(controlPlaneEnv.CONTROL_PLANE_WORKSPACES.getByName(workspaceId), read)) as ObjectState,
  };
}

/** The state of an emulator this project does not run. */
const NOTHING: ObjectState = { tables: {}, kv: "[]", alarm: null, ids: {} };

/** The part of a snapshot a refused request must leave alone (everything but the id index). */
export function storedData(state: EmulatorState) {
  const { ids: _a, ...agentServer } = state.agentServer;
  const { ids: _w, ...workspace } = state.workspace;
  return { agentServer, workspace };
}

/**
 * Ids stored for a path parameter: values of a column named like it (`thread_id`), or of the `id`
 * column of a table named after it (`listener_id` -> `listeners.id`). Derived from the schema, so
 * new tables and routes need no list here.
 */
export function idsFor(state: EmulatorState, param: string): string[] {
  const noun = param.replace(/_id$/, "");
  const found = new Set<string>();
  for (const object of [state.agentServer, state.workspace]) {
    for (const [where, values] of Object.entries(object.ids)) {
      const [table, column] = where.split(".") as [string, string];
      if (column === param || (column === "id" && table.includes(noun))) values.forEach((v) => found.add(v));
    }
  }
  return [...found].sort();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function dump(state: DurableObjectState): Promise<ObjectState> {
  const sql = state.storage.sql;
  // Tables the runtime keeps for itself (_cf_*) are not the emulator's to compare.
  const names = sql
    .exec<{ name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_cf\\_%' ESCAPE '\\' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name",
    )
    .toArray()
    .map((row) => row.name);
  const tables: Record<string, { rows: number; sha256: string }> = {};
  const ids: Record<string, string[]> = {};
  for (const name of names) {
    const cursor = sql.exec(`SELECT * FROM "${name}"`);
    const rows = cursor.toArray();
    tables[name] = { rows: rows.length, sha256: await sha256(JSON.stringify(rows)) };
    for (const column of cursor.columnNames.filter((c) => c === "id" || c.endsWith("_id"))) {
      ids[`${name}.${column}`] = rows.map((row) => row[column]).filter((v): v is string => typeof v === "string" && UUID.test(v));
    }
  }
  const kv = JSON.stringify([...(await state.storage.list()).entries()]);
  return { tables, kv, alarm: await state.storage.getAlarm(), ids };
}

async function sha256(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
