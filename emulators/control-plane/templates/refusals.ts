import { refuse } from "../../shared/result.ts";

// Worded like the real API's listener messages ("Listener ID {id} not found."), so a client that
// matches on them reads templates the same way.

/** 404: no template with this id in the workspace. */
export const templateNotFound = (templateId: string) => refuse(404, `Sandbox template ID ${templateId} not found.`);

/** 409: template names are unique within a workspace (docs/control-plane-templates.md). */
export const duplicateTemplateName = (name: string, existingId: string) =>
  refuse(409, `Sandbox template with name '${name}' already exists in this workspace (ID ${existingId}). Choose another name or delete that template first.`);
