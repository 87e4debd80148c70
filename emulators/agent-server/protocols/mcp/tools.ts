import type { JsonValue } from "../../../shared/pydantic/json.ts";
import type { Refusal } from "../../../shared/result.ts";
import { AssistantSearch, type Assistant } from "../../assistants/schema.ts";
import { graphSchemas } from "../../assistants/graph-schemas.ts";
import type { AgentServerBindings } from "../../env.ts";
import { findGraph } from "../../graphs/registry.ts";
import { resolveAssistantRef } from "../../ids.ts";
import { assistantsOf } from "../../state-access.ts";
import type { Context } from "hono";
import type { AgentServerEnv } from "../../env.ts";
import { ok } from "../../../shared/result.ts";
import { interruptRun, runPath, settledJson } from "../../runs/responses.ts";
import { RPC_ERRORS, rpcAnswer, type RpcError, type RpcId } from "../json-rpc.ts";
import { startRun } from "../run-to-end.ts";

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
  if (offset === undefined)
    return { error: { code: RPC_ERRORS.invalidParams, message: `Invalid cursor ${JSON.stringify(cursor)}: pass the nextCursor of the previous page.` } };
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
 * `tools/call`, answered as `POST /runs/wait` answers (runs/responses.ts, settledJson): refused at
 * once (an unknown tool, arguments that are no object, a run the server refuses: JSON-RPC errors),
 * or 200 with its headers at once and the JSON-RPC answer written when the run is over. A run may
 * take longer than anything between client and server waits for headers (the gateway gives a
 * response's first byte UPSTREAM_TIMEOUT_MS). A caller that hangs up before the answer has its
 * run interrupted: no one is left to take the answer, and the run would hold its thread busy.
 * The answer's result is the run's output, its final values, as JSON text content; a run that
 * fails is a tool result with `isError: true` (the spec's tool execution error).
 */
export async function answerToolCall(c: Context<AgentServerEnv>, id: RpcId, params: Record<string, unknown>): Promise<Response> {
  const call = await toolCall(c.env, params);
  if ("error" in call) return rpcAnswer(c, id, call);
  const started = await startRun(c.env, { kind: "stateless", assistantId: call.assistantId, input: call.input });
  if (!started.ok) return rpcAnswer(c, id, { error: { code: RPC_ERRORS.invalidParams, message: refusalText(started) } });
  const { run, outcome } = started.value;
  return settledJson(
    async () => {
      using waiting = outcome;
      return ok({ jsonrpc: "2.0", id, ...toolResult(await waiting.value()) } as JsonValue);
    },
    { "content-location": runPath(run.thread_id, run.run_id) },
    interruptRun(c, run.thread_id, run.run_id),
  );
}

/** The assistant a `tools/call` runs and its input, or the JSON-RPC error it is refused with. */
async function toolCall(env: AgentServerBindings, params: Record<string, unknown>): Promise<{ assistantId: string; input: unknown } | { error: RpcError }> {
  const { name, arguments: args } = params;
  if (typeof name !== "string" || name === "")
    return { error: { code: RPC_ERRORS.invalidParams, message: 'tools/call needs "name", the tool to call (see tools/list).' } };
  if (args !== undefined && (args === null || typeof args !== "object" || Array.isArray(args))) {
    return {
      error: {
        code: RPC_ERRORS.invalidParams,
        message: '"arguments" must be an object: the graph\'s input, e.g. {"messages": [{"role": "user", "content": "hi"}]}.',
      },
    };
  }
  const assistantId = await assistantForTool(env, name);
  if (typeof assistantId !== "string") return { error: assistantId };
  return { assistantId, input: args ?? {} };
}

/** A finished run's outcome as the tool's result. */
function toolResult(outcome: JsonValue): { result: unknown } {
  const failure = errorOf(outcome);
  if (failure) return { result: { isError: true, content: [{ type: "text", text: failure }] } };
  return { result: { content: [{ type: "text", text: JSON.stringify(outcome) }], isError: false } };
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
