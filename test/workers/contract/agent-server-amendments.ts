/**
 * Where the agent-server reference document is broken, or describes a success answer differently
 * from what the real server sends and both official clients read, the contract holds the real
 * server's answer instead (docs/agent-server.md, "The reference document"). Each amendment names
 * its reason; anything the document describes correctly is left alone.
 */
import type { Document } from "./validators-plugin.ts";

type Schema = Record<string, unknown>;

/**
 * Operations the real server serves and the official clients call that the document leaves out:
 * the stateless `runs.joinStream` (GET /runs/{run_id}/stream). The contract describes it as the
 * real server answers it; it is not among the document's 64 (operations.test.ts counts those).
 */
export const ADDED_OPERATIONS = ["GET /runs/{run_id}/stream"];

export function amendAgentServerDocument(doc: Document): void {
  const schemas = doc.components.schemas;

  // GET /store/items: a missing item is `200 null` (the clients return null for it).
  const item = doc.paths["/store/items"]?.get?.responses?.["200"]?.content?.["application/json"] as { schema?: Schema } | undefined;
  if (item?.schema) item.schema = { anyOf: [item.schema, { type: "null" }] };

  // The operation the document leaves out (ADDED_OPERATIONS), answered as the join on a thread is.
  const joinOnThread = doc.paths["/threads/{thread_id}/runs/{run_id}/stream"]?.get as Schema | undefined;
  if (joinOnThread && !doc.paths["/runs/{run_id}/stream"]) {
    const parameters = (joinOnThread.parameters as { name: string }[]).filter((p) => p.name !== "thread_id");
    (doc.paths as Record<string, unknown>)["/runs/{run_id}/stream"] = {
      get: { ...joinOnThread, operationId: "join_run_stream_runs__run_id__stream_get", parameters },
    };
  }

  // POST /a2a/{assistant_id}: a JSON-RPC answer echoes the request's id as sent, a string or a
  // number (JSON-RPC 2.0 allows both; the official A2A client numbers its requests), where the
  // document types it a string.
  const a2aAnswer = doc.paths["/a2a/{assistant_id}"]?.post?.responses?.["200"]?.content?.["application/json"] as { schema?: Schema } | undefined;
  const a2aId = (a2aAnswer?.schema?.properties as Record<string, Schema> | undefined)?.id;
  if (a2aId?.type === "string") a2aId.type = ["string", "integer"];

  // ThreadState: where a state has no parent checkpoint, or a task no error, checkpoint, state or
  // result, the real server (JS and Python alike) writes null, and both clients type these fields
  // as nullable; the document types them as objects and strings only. Omitting them would be
  // document-valid but not what code written for the real server reads (docs/agent-server.md).
  const threadState = schemas.ThreadState?.properties as Record<string, Schema> | undefined;
  if (threadState?.parent_checkpoint) threadState.parent_checkpoint = nullable(threadState.parent_checkpoint);
  const task = ((threadState?.tasks as Schema | undefined)?.items as Schema | undefined)?.properties as Record<string, Schema> | undefined;
  for (const field of ["error", "checkpoint", "state"]) if (task?.[field]) task[field] = nullable(task[field]);

  // POST /store/namespaces: the real server (JS and Python) answers `{"namespaces": [...]}`, and
  // both clients type ListNamespaceResponse so (`namespaces: string[][]`); the document says a bare list.
  const namespaces = schemas.ListNamespaceResponse as Schema | undefined;
  if (namespaces?.type === "array") {
    schemas.ListNamespaceResponse = { type: "object", required: ["namespaces"], properties: { namespaces: { ...namespaces } } };
  }

  // Cron: a stateless cron has no thread and a cron without an end has no end time; the server
  // answers null for both (the clients type them Optional), where the document requires strings.
  const cronProperties = schemas.Cron?.properties as Record<string, Schema> | undefined;
  for (const field of ["thread_id", "end_time"]) {
    const property = cronProperties?.[field];
    if (property?.type === "string") property.type = ["string", "null"];
  }
}

/** The schema, or null. */
const nullable = (schema: Schema): Schema => ({ anyOf: [schema, { type: "null" }] });
