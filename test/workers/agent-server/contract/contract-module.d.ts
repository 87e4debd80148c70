// Types of the module validators-plugin.ts generates at config time.
declare module "virtual:agent-server-contract" {
  /** A standalone ajv validator: true when the value matches; otherwise `errors` says where. */
  export interface Validator {
    (value: unknown): boolean;
    errors?: ReadonlyArray<{ readonly instancePath: string; readonly message?: string; readonly keyword: string; readonly params: Record<string, unknown> }> | null;
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
  }

  export const operations: readonly DocumentedOperation[];
  /** The real server's error bodies: `{"detail": "..."}`, and FastAPI's 422 list. */
  export const errorBodies: { readonly detail: Validator; readonly validation: Validator };
}
