import type * as z from "zod/mini";
import { type JsonSchema, SchemaComponents } from "./json-schema.ts";
import type { DescribedOperation, HeaderName, OperationSpec, ResponseSpec } from "./spec.ts";
import { errors } from "./errors.ts";

const HEADERS: Record<HeaderName, { description: string; schema: JsonSchema; example?: string }> = {
  "X-Request-Id": {
    description:
      "The request's id: a sane inbound one echoed (never one that could be a credential: see " +
      "Conventions), else a new `req_…` id.",
    schema: { type: "string" },
  },
  "Cache-Control": {
    description:
      "`public, max-age=60, stale-while-revalidate=300` on catalog 200s, `public, max-age=30` " +
      "on catalog 404s, `no-store` on cart and auth.",
    schema: { type: "string" },
  },
  ETag: {
    description:
      'A strong validator of the body; send it back in `If-None-Match` for a 304 (on the rules document, `"<version>"`: send it back in `If-Match`).',
    schema: { type: "string" },
  },
  "X-Catalog-Version": { description: "The published catalog version that answered.", schema: { type: "string" } },
  Vary: { description: "`Origin` on cart responses, whose CORS headers depend on it.", schema: { type: "string" } },
  Allow: { description: "The methods this path answers.", schema: { type: "string" } },
  "Retry-After": { description: "Seconds to wait before retrying.", schema: { type: "integer", minimum: 0 } },
  "WWW-Authenticate": {
    description:
      'The Bearer challenge: `Bearer realm="storefront"`, with `error="invalid_token"` when a token was sent.',
    schema: { type: "string" },
  },
  "Idempotent-Replayed": {
    description: "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.",
    schema: { type: "string", enum: ["true"] },
  },
  Location: { description: "Where the resource is.", schema: { type: "string" } },
  "Cart-Token": {
    description:
      "A fresh shopper token for the same holder (same cart), on a successful answer to a shopper " +
      "token past half its 30-day life or signed with a retired secret during a rotation. Replace " +
      "the kept token with it; the old one keeps working until its own expiry.",
    schema: { type: "string" },
  },
  "Cart-Token-Expires": {
    description: "When the `Cart-Token` beside it expires (ISO 8601 UTC).",
    schema: { type: "string", format: "date-time" },
  },
  "RateLimit-Policy": {
    description:
      'The cart write limit (IETF httpapi RateLimit headers draft): `"cart-writes";q=120;w=60`, ' +
      "120 writes per 60-second window per token.",
    schema: { type: "string" },
  },
  RateLimit: {
    description:
      'What is left of the cart write limit: `"cart-writes";r=<writes left>;t=<seconds until the ' +
      "window resets>`. An idempotent replay does not count. Back off when `r` reaches 0.",
    schema: { type: "string" },
  },
  Link: {
    description:
      'RFC 8288 links to the neighbouring pages of a list: `<URL>; rel="next"` and/or ' +
      '`<URL>; rel="prev"`, comma-separated. Each URL is this request\'s own, with the cursor ' +
      "(`starting_after` = the page's last item, `ending_before` = its first) and `catalog_version` " +
      "(this answer's `X-Catalog-Version`) filled in: follow `next` until it is absent. Absent when " +
      "the list has no such neighbour (a first page has no `prev`; a last page no `next`).",
    schema: { type: "string" },
    example:
      '<https://shop.example/api/v1/products?limit=2&starting_after=essential-crew-tee-white&catalog_version=20261124T204000Z-a1b2c3>; rel="next"',
  },
};

const REQUEST_HEADERS = {
  "Idempotency-Key": {
    description:
      "Makes a retry safe: the same key with the same request replays the first answer (with " +
      "`Idempotent-Replayed: true`) and changes nothing; with a different request it is 422, " +
      "while the first is still running 409. Scoped to the token holder, kept 24 hours.",
    schema: { type: "string", minLength: 1, maxLength: 255 },
  },
  "If-None-Match": {
    description: "An ETag from an earlier answer: 304 with no body when it still matches.",
    schema: { type: "string" },
  },
  "If-Match": {
    description:
      'The ETag of the rules you read (`"<version>"`, quotes included), or `*` for whatever is live: 412 `rules_version_mismatch` when the live rules changed since.',
    schema: { type: "string" },
  },
} as const;

/** What the document says about the service as a whole; the contract's conventions in short. */
export interface DocumentInfo {
  title: string;
  version: string;
  description: string;
  tags: { name: string; description: string }[];
}

const SECURITY_SCHEMES = {
  bearerAuth: {
    type: "http",
    scheme: "bearer",
    description:
      "A shopper token from `POST /carts` (`sf_cart_…`: a storefront gets one per visitor, no " +
      "operator involved), or a token the operator issued (`sf_live_…`; `sf_dev_…` only under " +
      "`npm run dev`). Case-sensitive; never in the query string.",
  },
  operatorAuth: {
    type: "http",
    scheme: "bearer",
    description: "The operator secret. Customer tokens can never reach the operator surface.",
  },
} as const;

/** Spreads an object schema (path or query) into one OpenAPI parameter per property. */
function spread(schema: z.ZodMiniType, where: "path" | "query", components: SchemaComponents): JsonSchema[] {
  const root = components.add(schema, "input", { inline: true });
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
  if (op.queryPattern) {
    const { description, ...schema } = components.add(op.queryPattern.schema, "input", { inline: true });
    parameters.push({
      name: op.queryPattern.name,
      in: "query",
      required: false,
      style: "deepObject",
      explode: true,
      ...(description ? { description } : {}),
      schema,
    });
  }
  for (const { name, schema } of op.requestHeaders ?? []) {
    const header = REQUEST_HEADERS[name];
    parameters.push({
      name,
      in: "header",
      required: false,
      description: header.description,
      schema: schema ? components.add(schema, "input") : header.schema,
    });
  }
  return parameters;
}

function responseOf(spec: ResponseSpec, schema: JsonSchema | undefined): JsonSchema {
  const headers = Object.fromEntries(
    (spec.headers ?? []).map((name) => [name, { $ref: `#/components/headers/${name}` }]),
  );
  const out: JsonSchema = { description: spec.description };
  if (Object.keys(headers).length > 0) out.headers = headers;
  if (schema) {
    // An error's codes narrow the shared envelope: `error.code` is one of this answer's codes.
    const narrowed = spec.codes?.length
      ? {
          allOf: [
            schema,
            {
              type: "object",
              properties: { error: { type: "object", properties: { code: { type: "string", enum: spec.codes } } } },
            },
          ],
        }
      : schema;
    const media: JsonSchema = { schema: narrowed };
    if (spec.examples) media.examples = spec.examples;
    out.content = { [spec.contentType ?? "application/json"]: media };
  }
  return out;
}

/**
 * Builds an OpenAPI 3.1 document from described operations (see ./describe.ts). Every schema in
 * it is converted from the zod schema the handler validates with or answers with
 * (`z.toJSONSchema`), so the document describes the code rather than a second copy of it. Only
 * the components, headers and security schemes the operations use are included.
 */
export function buildDocument(info: DocumentInfo, described: readonly DescribedOperation[]): JsonSchema {
  // HEAD works wherever GET does (Hono answers it with the GET handler and no body); the guide
  // says so once instead of a `head` twin per GET, which doubled the reference's sidebar.
  // Every operation answers 414 to a URL over 16 KiB, before its route runs (issue 42, point 19).
  const tooLong = errors("url_too_long")[414]!;
  const operations = described.map((op) =>
    op.spec.responses[414] ? op : { ...op, spec: { ...op.spec, responses: { ...op.spec.responses, 414: tooLong } } },
  );
  const components = new SchemaComponents();
  // Responses first: a request schema whose input differs from its output then becomes `<id>Input`.
  const responseSchemas = operations.map(({ spec }) =>
    Object.fromEntries(
      Object.entries(spec.responses).map(([status, response]) => [
        status,
        response.schema ? components.add(response.schema, "output") : undefined,
      ]),
    ),
  );
  const paths: Record<string, Record<string, JsonSchema>> = {};
  const headers = new Set<HeaderName>();
  const schemes = new Set<keyof typeof SECURITY_SCHEMES>();
  operations.forEach(({ method, path, spec: op }, index) => {
    for (const response of Object.values(op.responses))
      for (const header of response.headers ?? []) headers.add(header);
    const responses = Object.fromEntries(
      Object.entries(op.responses).map(([status, spec]) => [
        status,
        responseOf(spec, responseSchemas[index]?.[status]),
      ]),
    );
    const scheme = op.auth === "bearer" ? "bearerAuth" : op.auth === "operator" ? "operatorAuth" : undefined;
    if (scheme) schemes.add(scheme);
    const operation: JsonSchema = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: [op.tag],
      security: scheme ? [{ [scheme]: [] }] : [],
    };
    const parameters = parametersOf(op, components);
    if (parameters.length > 0) operation.parameters = parameters;
    if (op.body && method !== "head") {
      const media: JsonSchema = { schema: components.add(op.body.schema, "input") };
      if (op.body.examples) media.examples = op.body.examples;
      operation.requestBody = { required: op.body.required ?? true, content: { "application/json": media } };
    }
    operation.responses = responses;
    paths[path] ??= {};
    if (paths[path][method]) throw new Error(`${method.toUpperCase()} ${path} is described twice.`);
    paths[path][method] = operation;
  });
  const usedTags = new Set(operations.map(({ spec }) => spec.tag));
  return {
    openapi: "3.1.0",
    info: { title: info.title, version: info.version, description: info.description },
    servers: [{ url: "/", description: "This server" }],
    tags: info.tags.filter((tag) => usedTags.has(tag.name)),
    paths,
    components: {
      schemas: components.schemas,
      headers: Object.fromEntries(Object.entries(HEADERS).filter(([name]) => headers.has(name as HeaderName))),
      securitySchemes: Object.fromEntries(
        Object.entries(SECURITY_SCHEMES).filter(([name]) => schemes.has(name as keyof typeof SECURITY_SCHEMES)),
      ),
    },
  };
}
