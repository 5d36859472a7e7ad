import type * as z from "zod/mini";

/** Response headers the document describes once, in `components.headers`, and operations name. */
export type HeaderName =
  | "X-Request-Id"
  | "Cache-Control"
  | "ETag"
  | "X-Catalog-Version"
  | "Vary"
  | "Allow"
  | "Retry-After"
  | "WWW-Authenticate"
  | "Idempotent-Replayed"
  | "Location"
  | "Cart-Token"
  | "Cart-Token-Expires"
  | "RateLimit-Policy"
  | "RateLimit"
  | "Link";

/** One response of an operation. `schema` is the zod schema the handler's body conforms to. */
export interface ResponseSpec {
  description: string;
  /** The body schema; absent for bodiless answers (304, redirects). */
  schema?: z.ZodMiniType;
  /** Media type of the body; JSON unless said otherwise. */
  contentType?: string;
  headers?: readonly HeaderName[];
  /** Named examples, real values from the seed catalog where the body is catalog data. */
  examples?: Record<string, { summary: string; value: unknown }>;
  /**
   * An error answer's possible `code`s: the document narrows `error.code` to them (an enum per
   * operation and status), so a generated client can switch on them (issue 42, point 17).
   */
  codes?: readonly string[];
}

/**
 * What the OpenAPI document says about one operation, written beside its route with
 * `describe(spec)` (./describe.ts). The method and path are the route's own, read from
 * `app.routes`, so the document cannot name a path the app does not serve. The response schemas
 * are the zod schemas the handler answers with, and the conformance test validates real responses
 * against the document they become.
 */
export interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  /** Who may call it: anyone, a customer Bearer token, or the operator secret (the operator document). */
  auth: "none" | "bearer" | "operator";
  /** The strict schema of the path parameters, one property per `:name` segment. */
  params?: z.ZodMiniType;
  /** The strict query schema the handler parses with `parseQuery`. */
  query?: z.ZodMiniType;
  /**
   * A family of query parameters named by a key (`option[<name>]`), as one `deepObject`
   * parameter: a record schema whose keys are the names.
   */
  queryPattern?: { name: string; schema: z.ZodMiniType };
  /** Request headers beyond Authorization that the operation reads, with the schema that checks them. */
  requestHeaders?: readonly { name: "Idempotency-Key" | "If-None-Match" | "If-Match"; schema?: z.ZodMiniType }[];
  /** The strict body schema the handler parses with `parseJsonBody`. */
  body?: { schema: z.ZodMiniType; required?: boolean; examples?: Record<string, { summary: string; value: unknown }> };
  responses: Record<number, ResponseSpec>;
}

/**
 * An operation's description without its id: what src/routes/reference/ keeps per operationId,
 * beside the route that carries only the id (`describe("listProducts")`).
 */
export type OperationDoc = Omit<OperationSpec, "operationId">;

/** An operation as the app serves it: the route's method (lower case) and OpenAPI path, and its spec. */
export interface DescribedOperation {
  method: "get" | "head" | "post" | "patch" | "put" | "delete";
  /** The OpenAPI path, e.g. `/api/v1/products/{handle}`. */
  path: string;
  spec: OperationSpec;
}
