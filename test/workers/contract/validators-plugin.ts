/**
 * Config-time half of the contract test: compiles a reference API description (vendored in
 * test/fixtures/reference, held identical to `../shared/reference` by
 * test/unit/docs/reference-documents.test.ts) into JSON Schema validators with ajv, in Node, and serves
 * them to the Workers-runtime tests as a virtual module, `virtual:<name>-contract`. One mechanism
 * for every document (documents.ts lists them); contract.ts checks a response against a module.
 *
 * Why here: ajv compiles a schema into a function with `new Function`, which workerd forbids
 * (code generation from strings). ajv's standalone mode writes those functions out as module
 * source instead, so the tests import plain code. The one thing the generated code `require`s
 * (ajv-formats' format checks) becomes an import, which the Workers test pool resolves.
 *
 * The module exports every documented operation with, per success status and media type, the
 * validator of its schema (contract.ts picks one per response), the validators of error answers
 * the document types in a shape of their own, and the validators of the error bodies a FastAPI
 * server sends (see ERROR_BODIES).
 */
import Ajv2020 from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import standaloneCode from "ajv/dist/standalone/index.js";

type Schema = Record<string, unknown>;
interface Media {
  readonly schema?: Schema;
}
interface Response {
  readonly content?: Record<string, Media>;
}
interface Operation {
  readonly operationId?: string;
  readonly requestBody?: { readonly content?: Record<string, Media> };
  readonly responses?: Record<string, Response>;
}
/** An OpenAPI document as the compiler reads it. */
export interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: { readonly schemas: Record<string, Schema>; readonly responses?: Record<string, unknown> };
}

/** A reference document the tests hold an emulator to. */
export interface ContractDocument {
  /** Names the module, `virtual:<name>-contract`, and the plugin. */
  readonly name: string;
  /** The document as vendored; never modified (it is copied first). */
  readonly document: object;
  /**
   * Where the document is broken or describes an answer otherwise than the real server sends it,
   * the copy is repaired to the real server's (each such change named and documented).
   */
  readonly amend?: (doc: Document) => void;
}

/** The module id the tests import for `name`. */
export const contractModule = (name: string) => `virtual:${name}-contract`;

const METHODS = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

/**
 * The error bodies of the real servers (both FastAPI services), which the documents describe
 * loosely or not at all (the agent server's types every error body as a bare string): FastAPI's `{"detail": "<message>"}`, and for
 * 422 its HTTPValidationError, `{"detail": [{type, loc, msg, input?, ctx?}]}`. Other top-level
 * fields are allowed (the gateway's own refusals are RFC 9457 problem bodies with a `detail`).
 */
const ERROR_BODIES: Record<string, Schema> = {
  detail: { type: "object", required: ["detail"], properties: { detail: { type: "string" } } },
  validation: {
    type: "object",
    required: ["detail"],
    properties: {
      detail: {
        type: "array",
        items: {
          type: "object",
          required: ["type", "loc", "msg"],
          additionalProperties: false,
          properties: {
            type: { type: "string" },
            loc: { type: "array", items: { type: ["string", "integer"] } },
            msg: { type: "string" },
            input: true,
            ctx: { type: "object" },
          },
        },
      },
    },
  },
};

/** The error schemas of FastAPI itself, as the documents name them. */
const FASTAPI_ERRORS = ["#/components/schemas/ErrorResponse", "#/components/schemas/HTTPValidationError"];

/** The document as a validator can use it: a copy, amended (see {@link ContractDocument.amend}). */
function amendedDocument(contract: ContractDocument): Document {
  const doc = structuredClone(contract.document) as Document;
  contract.amend?.(doc);
  return doc;
}

const pointer = (...parts: string[]) => parts.map((part) => part.replaceAll("~", "~0").replaceAll("/", "~1")).join("/");

/** `#/...` references made absolute against the document, for a schema copied out of it. */
function absoluteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(absoluteRefs);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, inner]) => [
      key,
      key === "$ref" && typeof inner === "string" && inner.startsWith("#") ? `doc${inner}` : absoluteRefs(inner),
    ]),
  );
}

/**
 * For an operation whose request can `select` fields (the search endpoints in their body, the run
 * list in its query), the component its
 * 200 answer lists, e.g. `Assistant` for `{"type": "array", "items": {"$ref": ".../Assistant"}}`.
 */
function selectableItems(doc: Document, operation: Operation): string | undefined {
  const request = operation.requestBody?.content?.["application/json"]?.schema;
  const requestName = typeof request?.$ref === "string" ? request.$ref.split("/").pop()! : undefined;
  const requestSchema = requestName ? doc.components.schemas[requestName] : request;
  const selectInQuery = ((operation as { parameters?: unknown }).parameters as { in?: string; name?: string }[] | undefined)?.some(
    (p) => p.in === "query" && p.name === "select",
  );
  if (!(requestSchema?.properties as Schema | undefined)?.select && !selectInQuery) return undefined;
  const answer = operation.responses?.["200"]?.content?.["application/json"]?.schema;
  const items = answer?.items as Schema | undefined;
  return typeof items?.$ref === "string" ? items.$ref.split("/").pop() : undefined;
}

/** The module's source: standalone validators, then the index of operations that uses them. */
export function contractModuleSource(contract: ContractDocument): string {
  const doc = amendedDocument(contract);
  const ajv = new Ajv2020({ code: { source: true, esm: true }, allErrors: true, strict: false });
  addFormats(ajv);
  ajv.addSchema({ $id: "doc", paths: doc.paths, components: doc.components });

  const exported: Record<string, string> = {};
  const entries: string[] = [];
  let next = 0;
  const compile = (schema: Schema): string => {
    const name = `v${next++}`;
    ajv.addSchema(schema, name);
    exported[name] = name;
    return name;
  };

  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      if (!METHODS.includes(method)) continue;
      const selectable = selectableItems(doc, operation);
      // With `select`, the real server answers only the fields asked for, which the listed
      // component's `required` does not allow: such answers are held to the component without it.
      if (selectable && !ajv.getSchema(`selected-${selectable}`)) {
        const { required: _required, ...optionalFields } = doc.components.schemas[selectable]!;
        ajv.addSchema({ ...(absoluteRefs(optionalFields) as Schema), $id: `selected-${selectable}` });
      }
      const responses: string[] = [];
      const errors: string[] = [];
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (Number(status) >= 400) {
          // An error the document types in a shape of its own is held to that shape; FastAPI's own
          // (ErrorResponse, HTTPValidationError) are held to ERROR_BODIES, which are stricter.
          const schema = response.content?.["application/json"]?.schema;
          if (schema && !FASTAPI_ERRORS.includes(String(schema.$ref))) {
            errors.push(
              `${JSON.stringify(status)}: ${compile({ $ref: `doc#/${pointer("paths", path, method, "responses", status, "content", "application/json", "schema")}` })}`,
            );
          }
          continue;
        }
        const media = Object.entries(response.content ?? {}).map(([type, { schema }]) => {
          if (!schema) return `${JSON.stringify(type)}: { validate: null }`;
          const validate = compile({ $ref: `doc#/${pointer("paths", path, method, "responses", status, "content", type, "schema")}` });
          const selected =
            selectable && status === "200" && type === "application/json" ? compile({ type: "array", items: { $ref: `selected-${selectable}` } }) : undefined;
          return `${JSON.stringify(type)}: { validate: ${validate}${selected ? `, selected: ${selected}` : ""} }`;
        });
        responses.push(`${JSON.stringify(status)}: { ${media.join(", ")} }`);
      }
      entries.push(
        `{ method: ${JSON.stringify(method.toUpperCase())}, path: ${JSON.stringify(path)}, operationId: ${JSON.stringify(operation.operationId ?? "")}, responses: { ${responses.join(", ")} }${errors.length > 0 ? `, errors: { ${errors.join(", ")} }` : ""} }`,
      );
    }
  }
  const errorValidators = Object.entries(ERROR_BODIES).map(([kind, schema]) => `${kind}: ${compile(schema)}`);

  const code = standaloneCode(ajv, exported);
  // The generated code is CommonJS in one respect: `require("ajv-formats/dist/formats")`.
  const imports = new Map<string, string>();
  const body = code.replace(/require\("([^"]+)"\)/g, (_, specifier: string) => {
    if (!imports.has(specifier)) imports.set(specifier, `__dependency${imports.size}`);
    return imports.get(specifier)!;
  });
  return [
    ...[...imports].map(([specifier, name]) => `import ${name} from ${JSON.stringify(specifier)};`),
    body,
    `export const operations = [\n${entries.join(",\n")}\n];`,
    `export const errorBodies = { ${errorValidators.join(", ")} };`,
  ].join("\n");
}

/**
 * The Vite plugin that serves one document's module to the Workers-runtime tests
 * (vitest.config.ts, through documents.ts). The source is built once per test run, when first
 * imported. Typed by its shape rather than with Vite's `Plugin`: this file is also compiled with
 * the Workers types, which Vite's (Node's) clash with.
 */
export function contractPlugin(contract: ContractDocument): { name: string; resolveId(id: string): string | undefined; load(id: string): string | undefined } {
  const id = contractModule(contract.name);
  const resolved = `\0${id}`;
  let source: string | undefined;
  return {
    name: `tollgate:${contract.name}-contract`,
    resolveId: (requested: string) => (requested === id ? resolved : undefined),
    load(requested: string) {
      if (requested !== resolved) return undefined;
      source ??= contractModuleSource(contract);
      return source;
    },
  };
}
