import type { z } from "zod";
import { type JsonSchema, SchemaComponents } from "./json-schema.ts";
import type { HeaderName, OperationSpec, ResponseSpec } from "./spec.ts";

/** Turns a Hono path (`/products/:handle`) into an OpenAPI one (`/products/{handle}`). */
export function toOpenApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, "{$1}");
}

const HEADERS: Record<HeaderName, { description: string; schema: JsonSchema }> = {
  "X-Request-Id": { description: "The request's id: a sane inbound one echoed, else a new `req_…` id.", schema: { type: "string" } },
  "Cache-Control": {
    description: "`public, max-age=60, stale-while-revalidate=300` on catalog 200s, `public, max-age=30` on catalog 404s, `no-store` on cart and auth.",
    schema: { type: "string" },
  },
  ETag: { description: "A strong validator of the body; send it back in `If-None-Match` for a 304.", schema: { type: "string" } },
  "X-Catalog-Version": { description: "The published catalog version that answered.", schema: { type: "string" } },
  Vary: { description: "`Origin` on cart responses, whose CORS headers depend on it.", schema: { type: "string" } },
  Allow: { description: "The methods this path answers.", schema: { type: "string" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } },
  "WWW-Authenticate": {
    description: 'The Bearer challenge: `Bearer realm="storefront"`, with `error="invalid_token"` when a token was sent.',
    schema: { type: "string" },
  },
  "Idempotent-Replayed": { description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.", schema: { type: "string", enum: ["true"] } },
  Location: { description: "Where the resource is.", schema: { type: "string" } },
};

const REQUEST_HEADERS = {
  "Idempotency-Key": {
    description:
      "Makes a retry safe: the same key with the same request replays the first answer (with `Idempotent-Replayed: true`) and changes nothing; with a different request it is 422, while the first is still running 409. Scoped to the token holder, kept 24 hours.",
    schema: { type: "string", minLength: 1, maxLength: 255 },
  },
  "If-None-Match": { description: "An ETag from an earlier answer: 304 with no body when it still matches.", schema: { type: "string" } },
} as const;

/** What the document says about the service as a whole; the contract's conventions in short. */
export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
  tags: { name: string; description: string }[];
}

/** Spreads an object schema (path or query) into one OpenAPI parameter per property. */
function spread(schema: z.ZodType, where: "path" | "query", components: SchemaComponents): JsonSchema[] {
  const root = components.resolve(components.add(schema, "input"));
  const required = new Set((root.required as string[] | undefined) ?? []);
  return Object.entries((root.properties ?? {}) as Record<string, JsonSchema>).map(([name, property]) => {
    const resolved = components.resolve(property);
    const description = property.description ?? resolved.description;
    const { description: _dropped, ...rest } = property;
    return {
      name,
      in: where,
      required: where === "path" || required.has(name),
      ...(description ? { description } : {}),
      schema: rest,
    };
  });
}

function parametersOf(op: OperationSpec, components: SchemaComponents): JsonSchema[] {
  const parameters = [
    ...(op.params ? spread(op.params, "path", components) : []),
    ...(op.query ? spread(op.query, "query", components) : []),
  ];
  for (const { name, schema } of op.requestHeaders ?? []) {
    const header = REQUEST_HEADERS[name];
    parameters.push({ name, in: "header", required: false, description: header.description, schema: schema ? components.add(schema, "input") : header.schema });
  }
  return parameters;
}

function responseOf(spec: ResponseSpec, schema: JsonSchema | undefined): JsonSchema {
  const headers = Object.fromEntries((spec.headers ?? []).map((name) => [name, { $ref: `#/components/headers/${name}` }]));
  const out: JsonSchema = { description: spec.description };
  if (Object.keys(headers).length > 0) out.headers = headers;
  if (schema) {
    const media: JsonSchema = { schema };
    if (spec.examples) media.examples = spec.examples;
    out.content = { [spec.contentType ?? "application/json"]: media };
  }
  return out;
}

/**
 * Builds the OpenAPI 3.1 document from the operation table. Every schema in it is converted from
 * the zod schema the handler validates with or answers with (`z.toJSONSchema`), so the document
 * describes the code rather than a second copy of it.
 */
export function buildDocument(info: DocumentInfo, operations: readonly OperationSpec[]): JsonSchema {
  const components = new SchemaComponents();
  // Responses first: a request schema whose input differs from its output then becomes `<id>Input`.
  const responseSchemas = operations.map((op) =>
    Object.fromEntries(
      Object.entries(op.responses).map(([status, spec]) => [status, spec.schema ? components.add(spec.schema, "output") : undefined]),
    ),
  );
  const paths: Record<string, Record<string, JsonSchema>> = {};
  operations.forEach((op, index) => {
    const responses = Object.fromEntries(
      Object.entries(op.responses).map(([status, spec]) => [status, responseOf(spec, responseSchemas[index]?.[status])]),
    );
    const operation: JsonSchema = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security: op.auth === "none" ? [] : [{ [op.auth === "bearer" ? "bearerAuth" : "operatorAuth"]: [] }],
    };
    const parameters = parametersOf(op, components);
    if (parameters.length > 0) operation.parameters = parameters;
    if (op.body) {
      const media: JsonSchema = { schema: components.add(op.body.schema, "input") };
      if (op.body.examples) media.examples = op.body.examples;
      operation.requestBody = { required: op.body.required ?? true, content: { "application/json": media } };
    }
    operation.responses = responses;
    const path = toOpenApiPath(op.path);
    paths[path] ??= {};
    paths[path][op.method] = operation;
  });
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: "/", description: "This server" }],
    tags: info.tags,
    paths,
    components: {
      schemas: components.schemas,
      headers: Object.fromEntries(Object.entries(HEADERS).map(([name, header]) => [name, header])),
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "A customer token issued by the operator (`sf_…`). Case-sensitive; never in the query string.",
        },
        operatorAuth: {
          type: "http",
          scheme: "bearer",
          description: "The operator secret. Customer tokens can never reach the operator surface.",
        },
      },
    },
  };
}
