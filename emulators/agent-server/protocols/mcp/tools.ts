import type { JsonValue } from "../../../shared/pydantic/json.ts";
import type { Refusal } from "../../../shared/result.ts";
import { AssistantSearch, type Assistant } from "../../assistants/schema.ts";
import { graphSchemas } from "../../assistants/graph-schemas.ts";
import type { AgentServerBindings } from "../../env.ts";
import { findGraph } from "../../graphs/registry.ts";
import { resolveAssistantRef } from "../../ids.ts";
import { assistantsOf } from "../../state-access.ts";
import { RPC_ERRORS, type RpcError } from "../json-rpc.ts";
import { runToEnd } from "../run-to-end.ts";

/** Tools per `tools/list` page; `nextCursor` is the offset of the next page. */
export const TOOLS_PAGE_SIZE = 100;

/** An MCP Tool (the spec's `Tool`): one assistant, called with its graph's input as arguments. */
export interface Tool {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: Record<string, unknown>;
}

type Outcome = { result: unknown } | { error: RpcError };

/**
 * Every assistant, oldest first (so a cursor stays put while assistants are added), read in
 * pages of the search's largest limit.
 */
async function allAssistants(env: AgentServerBindings): Promise<Assistant[]> {
  const all: Assistant[] = [];
  for (let offset = 0; ; offset += 1000) {
    using assistants = assistantsOf(env);
    const page = await assistants.search(AssistantSearch.parse({ limit: 1000, offset, sort_by: "created_at", sort_order: "asc" }));
    all.push(...(page.items as Assistant[]));
    if (page.items.length < 1000) return all;
  }
}

/**
 * The name an assistant is listed and called by: its own name when no other assistant has it (and
 * it is no graph id, which names that graph's default assistant everywhere in the API), else its
 * assistant_id. Every listed name thus calls exactly one assistant; the real server lists names
 * as they are and refuses a call to a name two assistants share.
 */
function toolName(assistant: Assistant, nameCounts: ReadonlyMap<string, number>): string {
  if (assistant.metadata?.created_by === "system" && assistant.name === assistant.graph_id) return assistant.name;
  const unique = nameCounts.get(assistant.name) === 1 && !findGraph(assistant.name);
  return unique ? assistant.name : assistant.assistant_id;
}

/** `tools/list`: each assistant a tool, its input schema its graph's (GET /assistants/{id}/schemas). */
export async function listTools(env: AgentServerBindings, params: Record<string, unknown>): Promise<Outcome> {
  const cursor = params.cursor;
  const offset = cursor === undefined ? 0 : typeof cursor === "string" && /^\d{1,9}$/.test(cursor) ? Number(cursor) : undefined;
  if (offset === undefined) return { error: { code: RPC_ERRORS.invalidParams, message: `Invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of the previous page.` } };
  const assistants = await allAssistants(env);
  const nameCounts = new Map<string, number>();
  for (const a of assistants) nameCounts.set(a.name, (nameCounts.get(a.name) ?? 0) + 1);
  const page = assistants.slice(offset, offset + TOOLS_PAGE_SIZE);
  const tools: Tool[] = page.map((assistant) => ({
    name: toolName(assistant, nameCounts),
    title: assistant.name,
    description: assistant.description ?? `Runs assistant ${assistant.assistant_id} (graph '${assistant.graph_id}', version ${assistant.version}).`,
    inputSchema: findGraph(assistant.graph_id) ? graphSchemas(findGraph(assistant.graph_id)!).input_schema : { type: "object" },
  }));
  const next = offset + TOOLS_PAGE_SIZE < assistants.length ? { nextCursor: String(offset + TOOLS_PAGE_SIZE) } : {};
  return { result: { tools, ...next } };
}

/** The assistant a tool name calls: a graph id (its default assistant), an assistant_id, or a name one assistant has. */
async function assistantForTool(env: AgentServerBindings, name: string): Promise<string | RpcError> {
  const ref = findGraph(name) ? resolveAssistantRef(name) : undefined;
  if (ref) return ref;
  const assistants = await allAssistants(env);
  const byId = resolveAssistantRef(name);
  const found = byId ? assistants.filter((a) => a.assistant_id === byId) : assistants.filter((a) => a.name === name);
  if (found.length === 1) return found[0]!.assistant_id;
  const why = found.length === 0 ? `Unknown tool: ${name}` : `Tool name ${name} is shared by ${found.length} assistants; call one by its assistant_id.`;
  return { code: RPC_ERRORS.invalidParams, message: why };
}

/**
 * `tools/call`: runs the assistant as a stateless run with the arguments as its input (as
 * `POST /runs/wait`), and answers its output, the run's final values, as JSON text content. A run
 * that fails is a tool result with `isError: true` (the spec's tool execution error); an unknown
 * tool or arguments that are no object are JSON-RPC errors.
 */
export async function callTool(env: AgentServerBindings, params: Record<string, unknown>): Promise<Outcome> {
  const { name, arguments: args } = params;
  if (typeof name !== "string" || name === "") return { error: { code: RPC_ERRORS.invalidParams, message: 'tools/call needs "name", the tool to call (see tools/list).' } };
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
    return { error: { code: RPC_ERRORS.invalidParams, message: '"arguments" must be an object: the graph\'s input, e.g. {"messages": [{"role": "user", "content": "hi"}]}.' } };
  }
  const assistantId = await assistantForTool(env, name);
  if (typeof assistantId !== "string") return { error: assistantId };
  const ran = await runToEnd(env, { kind: "stateless", assistantId, input: args ?? {} });
  if (!ran.ok) return { error: { code: RPC_ERRORS.invalidParams, message: refusalText(ran) } };
  const failure = errorOf(ran.value.outcome);
  if (failure) return { result: { isError: true, content: [{ type: "text", text: failure }] } };
  return { result: { content: [{ type: "text", text: JSON.stringify(ran.value.outcome) }], isError: false } };
}

/** A refused run's reason as one line of text. */
export function refusalText(refusal: Refusal): string {
  return typeof refusal.detail === "string" ? refusal.detail : refusal.detail.map((e) => `${e.loc.join(".")}: ${e.msg}`).join("; ");
}

/** `"<kind>: <message>"` of a failed run's outcome (`{"__error__": ...}`), else undefined. */
export function errorOf(outcome: JsonValue): string | undefined {
  if (outcome === null || typeof outcome !== "object" || Array.isArray(outcome) || !("__error__" in outcome)) return undefined;
  const error = outcome.__error__ as { error?: unknown; message?: unknown } | null;
  return `${String(error?.error ?? "Error")}: ${String(error?.message ?? "")}`;
}
