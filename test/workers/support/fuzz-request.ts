import { idsFor, type EmulatorState } from "./emulator-state.ts";
import { fillPath, type EmulatorRoute } from "./emulator-routes.ts";
import { EXAMPLE_BODIES, type BodyPlan, type CredentialsPlan, type ParamPlan, type RequestPlan } from "./fuzz.ts";
import { workspaceKey } from "../control-plane/support.ts";
import { nestedJson } from "../../support/nested-json.ts";

/** Where a plan is aimed: the seeded workspace, and what is stored right now (for existing ids). */
export interface FuzzTarget {
  readonly workspaceId: string;
  readonly state: EmulatorState;
}

let clients = 0;

/** The request a plan describes, for the emulator under test (its own paths, any host). */
export function buildRequest(route: EmulatorRoute, plan: RequestPlan, target: FuzzTarget): Request {
  const values = Object.fromEntries(route.params.map((name, i) => [name, paramText(name, plan.params[i]!, target.state)]));
  const query = [new URLSearchParams(plan.query.pairs.map(([k, v]) => [k, v])).toString(), plan.query.raw].filter((part) => part !== "").join("&");
  const url = `https://emulator.test${fillPath(route, values)}${query === "" ? "" : `?${query}`}`;
  const method = plan.method ?? route.method;

  const headers = new Headers();
  // A client IP and key of its own for every request, so no rate limit is ever reached.
  clients++;
  headers.set("cf-connecting-ip", `10.${(clients >> 16) & 255}.${(clients >> 8) & 255}.${clients & 255}`);
  for (const [name, value] of credentialHeaders(plan.credentials, target.workspaceId)) headers.set(name, value);
  for (const [name, value] of plan.headers) headers.append(name, value);
  if (plan.contentType !== null) headers.set("content-type", plan.contentType);

  // Bytes, not a string: a string body would get a text/plain content type the plan did not ask for.
  const body = method === "GET" || method === "HEAD" ? undefined : bodyBytes(plan.body);
  return new Request(url, { method, headers, body });
}

/** The body a plan describes, as bytes (undefined: no body). */
function bodyBytes(plan: BodyPlan): Uint8Array | undefined {
  if (plan.kind === "bytes") return Uint8Array.from(plan.bytes);
  const text = bodyText(plan);
  return text === undefined ? undefined : new TextEncoder().encode(text);
}

function paramText(name: string, plan: ParamPlan, state: EmulatorState): string {
  switch (plan.kind) {
    case "existing": {
      const ids = idsFor(state, name);
      return ids.length > 0 ? ids[plan.pick % ids.length]! : crypto.randomUUID();
    }
    case "uuid":
    case "text":
      return encodeURIComponent(plan.value);
    case "escaped":
      return plan.value;
  }
}

function credentialHeaders(credentials: CredentialsPlan, workspaceId: string): [string, string][] {
  const key = `fuzz-${crypto.randomUUID()}`;
  switch (credentials) {
    case "tenant":
      // The seeded workspace admits its own key only (issue 32, finding 3).
      return [
        ["x-api-key", workspaceKey(workspaceId)],
        ["x-tenant-id", workspaceId],
      ];
    case "api-key":
      return [["x-api-key", key]];
    case "bearer":
      return [["authorization", `Bearer ${key}`]];
    case "bad-tenant":
      return [
        ["x-api-key", key],
        ["x-tenant-id", "not-a-uuid"],
      ];
    case "none":
      return [];
  }
}

const MEGABYTE = 1024 * 1024;
const SLOT = "__fuzz_slot__";

/** The body text a plan describes (undefined: no body, or not text). */
function bodyText(plan: BodyPlan): string | undefined {
  switch (plan.kind) {
    case "none":
    case "bytes":
      return undefined;
    case "text":
      return plan.text;
    case "json":
    case "fields":
      return JSON.stringify(plan.value);
    case "mutated":
      return JSON.stringify(withFields(EXAMPLE_BODIES[plan.example]!, [plan.field], plan.value));
    case "nested": {
      // Built as text: the value is far too deep for JSON.stringify's recursion to be a fair test.
      const nested = nestedJson(Math.max(0, plan.depth - 1));
      const template = JSON.stringify(withFields(EXAMPLE_BODIES[plan.example]!, plan.fields, SLOT));
      const slot = JSON.stringify(SLOT);
      if (plan.closed) return template.replaceAll(slot, nested);
      return template.slice(0, template.indexOf(slot)) + nested.slice(0, nested.indexOf('"leaf"'));
    }
    case "huge":
      return hugeText(plan);
  }
}

function hugeText({ megabytes, field, shape }: Extract<BodyPlan, { kind: "huge" }>): string {
  const bytes = megabytes * MEGABYTE;
  const key = JSON.stringify(field);
  switch (shape) {
    case "string":
      return `{${key}:"${"x".repeat(bytes)}"}`;
    case "array":
      return `{${key}:[${"0,".repeat(bytes / 2)}0]}`;
    case "keys":
      return `{${key}:{${Array.from({ length: bytes / 12 }, (_, i) => `"k${i}":0`).join(",")}}}`;
    case "not-json":
      return "not json, ".repeat(bytes / 10);
  }
}

/**
 * A copy of `body` with each field's first occurrence (depth first) set to `value`, or removed
 * when `value` is undefined; a field found nowhere is added at the top.
 */
function withFields(body: Readonly<Record<string, unknown>>, fields: readonly string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body) as Record<string, unknown>;
  for (const field of fields) {
    const holder = findHolder(copy, field) ?? copy;
    if (value === undefined) delete holder[field];
    else holder[field] = value;
  }
  return copy;
}

function findHolder(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === null || typeof value !== "object") return undefined;
  if (!Array.isArray(value) && field in value) return value as Record<string, unknown>;
  for (const child of Object.values(value)) {
    const found = findHolder(child, field);
    if (found) return found;
  }
  return undefined;
}
