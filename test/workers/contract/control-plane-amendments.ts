/**
 * Where the control-plane reference document describes an answer only in prose, the contract
 * holds what the prose says (docs/control-plane-deployments.md, "The reference document"). Each
 * amendment names its reason; anything the document describes correctly is left alone.
 */
import type { Document } from "./validators-plugin.ts";

export function amendControlPlaneDocument(doc: Document): void {
  // Bulk delete: the description says "207: Some deployments deleted successfully, some failed",
  // the responses list 200 only; a partial success is answered like a full one (same schema).
  const bulkDelete = doc.paths["/v2/deployments"]?.delete?.responses as Record<string, unknown> | undefined;
  if (bulkDelete?.["200"] && !bulkDelete["207"]) bulkDelete["207"] = structuredClone(bulkDelete["200"]);
}
