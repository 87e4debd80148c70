/**
 * A contract, checked on every response an emulator's tests receive: a success must be one the
 * reference document describes for that operation (status, media type, body schema); an error must
 * have the real server's `{"detail": ...}` shape (docs/agent-server.md, "The reference document").
 * Validators are compiled from the document at config time (validators-plugin.ts); one checker
 * serves every document (agent-server.ts, control-plane.ts bind it to theirs).
 */
import type { CompiledContract, DocumentedOperation, Validator } from "virtual:agent-server-contract";

/** A request as the contract needs it: the method, the path on the service, the JSON body sent. */
export interface Exchange {
  readonly method: string;
  /** The path below the service's base URL, with or without a query. */
  readonly path: string;
  readonly requestBody?: unknown;
}

/** A response that breaks the contract; the message says how, with the body. */
export class ContractViolation extends Error {
  override name = "ContractViolation";
}

/** The checker of one document: finds a request's operation and holds a response to it. */
export interface Contract {
  readonly operations: readonly DocumentedOperation[];
  findOperation(method: string, path: string): DocumentedOperation | undefined;
  /** Throws a {@link ContractViolation} unless `response` is what the document allows for `exchange`. */
  checkResponse(exchange: Exchange, response: Response): Promise<void>;
}

/** The checker of a compiled document (`import * as compiled from "virtual:<name>-contract"`). */
export function createContract({ operations, errorBodies }: CompiledContract): Contract {
  const findOperation = (method: string, path: string) => operationFor(operations, method, path);
  return {
    operations,
    findOperation,
    async checkResponse(exchange, response) {
      const problem = await problemWith(exchange, response, findOperation, errorBodies);
      if (problem) throw new ContractViolation(`${exchange.method} ${exchange.path} -> ${response.status}: ${problem}`);
    },
  };
}

/**
 * The documented operation a request is for. Where several templates match (`/assistants/search`
 * and `/assistants/{assistant_id}`), the one with more literal segments wins, as a router that
 * lists fixed paths before parameters would route it.
 */
function operationFor(operations: readonly DocumentedOperation[], method: string, path: string): DocumentedOperation | undefined {
  const segments = withoutQuery(path).split("/");
  const literals = (template: string) => template.split("/").filter((s) => !s.startsWith("{")).length;
  return operations
    .filter((op) => op.method === method.toUpperCase() && matches(op.path.split("/"), segments))
    .sort((a, b) => literals(b.path) - literals(a.path))[0];
}

async function problemWith(
  exchange: Exchange,
  response: Response,
  findOperation: Contract["findOperation"],
  errorBodies: CompiledContract["errorBodies"],
): Promise<string | undefined> {
  const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
  if (response.status >= 400) {
    if (mediaType !== "application/json" && mediaType !== "application/problem+json") return `an error answered as '${mediaType}', not JSON`;
    const body = await jsonOf(response);
    if (!body.ok) return body.problem;
    // An error the operation documents with a body of its own is held to that body (protocol v2's
    // 400 for a malformed command is a ProtocolError, not `{"detail": ...}`; validators-plugin.ts).
    const operation = findOperation(exchange.method, exchange.path);
    const own = operation?.errors?.[String(response.status)];
    if (own) return schemaProblem(own, body.value, `${operation!.operationId} ${response.status}`);
    return schemaProblem(response.status === 422 ? errorBodies.validation : errorBodies.detail, body.value, "the real server's error body");
  }

  const operation = findOperation(exchange.method, exchange.path);
  if (!operation) return "a success for an operation the document does not describe";
  const documented = operation.responses[String(response.status)];
  if (!documented)
    return `status ${response.status} is not documented for ${operation.operationId} (documented: ${Object.keys(operation.responses).join(", ")})`;
  const mediaTypes = Object.keys(documented);
  if (mediaTypes.length === 0) {
    const text = await response.clone().text();
    return text === "" ? undefined : `status ${response.status} of ${operation.operationId} has no body, got ${excerpt(text)}`;
  }
  const media = documented[mediaType];
  if (!media) return `media type '${mediaType}' is not documented for ${response.status} of ${operation.operationId} (documented: ${mediaTypes.join(", ")})`;
  // A stream is checked by its media type; its events are not described by the document.
  if (mediaType === "text/event-stream" || !media.validate) return undefined;
  // A JSON body is held to its schema as parsed; any other (GET /metrics' text/plain) as text.
  const body = /[/+]json$/.test(mediaType) ? await jsonOf(response) : { ok: true as const, value: await response.clone().text() };
  if (!body.ok) return body.problem;
  const selected = selection(exchange.requestBody) ?? querySelection(exchange.path);
  if (selected && media.selected) {
    const extra = (Array.isArray(body.value) ? body.value : []).flatMap((item) => Object.keys(item ?? {}).filter((key) => !selected.includes(key)));
    if (extra.length > 0) return `select ${JSON.stringify(selected)} answered fields it did not ask for: ${[...new Set(extra)].join(", ")}`;
    return schemaProblem(media.selected, body.value, `${operation.operationId} ${response.status} (selected fields)`);
  }
  return schemaProblem(media.validate, body.value, `${operation.operationId} ${response.status}`);
}

function schemaProblem(validate: Validator, value: unknown, what: string): string | undefined {
  if (validate(value)) return undefined;
  const errors = (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || "(root)"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
  return `body does not match ${what}:\n  ${errors.join("\n  ")}\nbody: ${excerpt(JSON.stringify(value))}`;
}

async function jsonOf(response: Response): Promise<{ ok: true; value: unknown } | { ok: false; problem: string }> {
  const text = await response.clone().text();
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, problem: `body is not JSON: ${excerpt(text)}` };
  }
}

/** The fields a search asked for with `select`, if it did (and `extracted`, when it asked for that with `extract`). */
function selection(requestBody: unknown): string[] | undefined {
  const { select, extract } = (requestBody ?? {}) as { select?: unknown; extract?: unknown };
  if (!Array.isArray(select) || select.length === 0) return undefined;
  return [...select.map(String), ...(extract ? ["extracted"] : [])];
}

/**
 * The fields a listing asked for with `?select=` (repeated, as FastAPI reads a list, or one JSON
 * list, as the JS client sends it), if it did.
 */
function querySelection(path: string): string[] | undefined {
  let select = new URLSearchParams(path.split("?")[1] ?? "").getAll("select");
  if (select.length === 1 && select[0]!.startsWith("[")) {
    try {
      select = (JSON.parse(select[0]!) as unknown[]).map(String);
    } catch {
      // Not a JSON list: the one field named.
    }
  }
  return select.length > 0 ? select : undefined;
}

function matches(template: readonly string[], segments: readonly string[]): boolean {
  return template.length === segments.length && template.every((part, i) => (part.startsWith("{") ? segments[i] !== "" : part === segments[i]));
}

const withoutQuery = (path: string) => path.split("?")[0]!;
const excerpt = (text: string) => (text.length > 400 ? `${text.slice(0, 400)}...` : text);
