/**
 * Where the agent-server reference document is broken, or describes a success answer differently
 * from what the real server sends and both official clients read, the contract holds the real
 * server's answer instead (docs/agent-server.md, "The reference document"). Each amendment names
 * its reason; anything the document describes correctly is left alone.
 */
import type { Document } from "./validators-plugin.ts";

type Schema = Record<string, unknown>;

export function amendAgentServerDocument(doc: Document): void {
  const schemas = doc.components.schemas;

  // ThreadState refers to `#/components/schemas/Interrupt`, which the document files under
  // `components.responses` instead: its one broken reference.
  const misfiled = doc.components.responses?.Interrupt as Schema | undefined;
  if (!schemas.Interrupt && misfiled) schemas.Interrupt = misfiled;

  // GET /store/items: a missing item is `200 null` (the clients return null for it).
  const item = doc.paths["/store/items"]?.get?.responses?.["200"]?.content?.["application/json"] as { schema?: Schema } | undefined;
  if (item?.schema) item.schema = { anyOf: [item.schema, { type: "null" }] };

  // Cron: a stateless cron has no thread and a cron without an end has no end time; the server
  // answers null for both (the clients type them Optional), where the document requires strings.
  const cronProperties = schemas.Cron?.properties as Record<string, Schema> | undefined;
  for (const field of ["thread_id", "end_time"]) {
    const property = cronProperties?.[field];
    if (property?.type === "string") property.type = ["string", "null"];
  }
}
