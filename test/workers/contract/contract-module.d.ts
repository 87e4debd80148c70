// Types of the modules validators-plugin.ts generates at config time, one per document
// (documents.ts): `virtual:agent-server-contract`, `virtual:control-plane-contract`.
declare module "virtual:*-contract" {
  /** A standalone ajv validator: true when the value matches; otherwise `errors` says where. */
  export interface Validator {
    (value: unknown): boolean;
    errors?: ReadonlyArray<{
      readonly instancePath: string;
      readonly message?: string;
      readonly keyword: string;
      readonly params: Record<string, unknown>;
    }> | null;
  }

  /** One documented media type of a success answer; `validate` is null when it has no schema. */
  export interface DocumentedMedia {
    readonly validate: Validator | null;
    /** For an answer to a request with `select`: the listed items without their required fields. */
    readonly selected?: Validator;
  }

  /** One operation of the document, with its success answers (status -> media type -> schema). */
  export interface DocumentedOperation {
    readonly method: string;
    /** The path template, e.g. `/threads/{thread_id}/runs/{run_id}`. */
    readonly path: string;
    readonly operationId: string;
    readonly responses: Readonly<Record<string, Readonly<Record<string, DocumentedMedia>>>>;
    /**
     * Error answers the document types in a shape of the operation's own (status -> validator),
     * e.g. protocol v2's ProtocolError; every other error is held to the FastAPI shapes.
     */
    readonly errors?: Readonly<Record<string, Validator>>;
  }

  /** The real server's error bodies: `{"detail": "..."}`, and FastAPI's 422 list. */
  export interface ErrorBodies {
    readonly detail: Validator;
    readonly validation: Validator;
  }

  /** The whole module, as contract.ts's `createContract` takes it. */
  export interface CompiledContract {
    readonly operations: readonly DocumentedOperation[];
    readonly errorBodies: ErrorBodies;
  }

  export const operations: readonly DocumentedOperation[];
  export const errorBodies: ErrorBodies;
}
