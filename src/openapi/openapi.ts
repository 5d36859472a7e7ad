import { describedOperations, type RouteEntry } from "./describe.ts";
import { buildDocument, type DocumentInfo } from "./document.ts";
import type { JsonSchema } from "./json-schema.ts";
import { GUIDE } from "./guide.ts";
import type { DescribedOperation, OperationDoc } from "./spec.ts";

const INFO: DocumentInfo = {
  title: "Storefront API",
  version: "1.0.0",
  description: GUIDE,
  tags: [
    { name: "Catalog", description: "Products, variants and collections. Anonymous." },
    { name: "Cart", description: "The token holder's cart, one per token holder. Bearer token required." },
    {
      name: "Checkout",
      description:
        "The cart frozen for payment, its units held in stock until it is paid, canceled or " +
        "expires; the hand-off URL to payment; the signed webhook that completes a checkout into " +
        "an order, exactly once.",
    },
    { name: "Auth", description: "Login is reserved for a future release." },
    { name: "Service", description: "Health, this document and the interactive reference." },
  ],
};

/** The operator's reference: the token surface `npm run token` drives. */
const OPERATOR_INFO: DocumentInfo = {
  title: "Storefront API: operator",
  version: INFO.version,
  description: [
    "The operator's surface: issuing, listing, rotating and revoking customer tokens (`npm " +
      "run token` drives it), completing checkouts paid outside the webhook, and reading " +
      "orders (`npm run orders`). It is not part of the storefront's reference " +
      "(`/api/v1/openapi.json`) or of a client generated from it.",
    "",
    "Every operation needs `Authorization: Bearer <OPERATOR_SECRET>` (a Wrangler secret; " +
      "`npm run dev` sets `dev-operator-secret`). A customer token (`sf_…`) can never reach " +
      "it. This document itself is served behind the same secret. Answers are `Cache-Control: " +
      "no-store`, carry no CORS headers (browsers are not meant to call it), and never repeat " +
      "a token, hash or id they were sent.",
    "",
    "Wrong secrets are throttled per client address (`CF-Connecting-IP`, which Cloudflare sets " +
      "on every request; an IPv6 address counts by its /64, since one client routinely has a " +
      "whole /64): past 30 in a minute (the `OPERATOR_AUTH_LIMITER` binding), every " +
      "attempt from that address, the right secret included, answers 429 `rate_limit_error`, " +
      "`code: rate_limited`, with `Retry-After: 60`, until the minute is over. A right secret " +
      "is never counted.",
    "",
    'Errors follow the storefront\'s envelope: `{"error": {"type", "message", "code", "param"}}`.',
  ].join("\n"),
  tags: [
    {
      name: "Operator",
      description:
        "Issuing and revoking customer tokens, completing checkouts, reading orders. Operator secret required.",
    },
  ],
};

/**
 * What a document names without documentation: a parameter with no description, a request or
 * response body whose schema is not a named component. Schemas carry only their shape in the
 * Worker; their ids, descriptions and examples are attached in src/routes/reference/schemas/, so
 * a schema missing there (or a module of it not loaded) shows up here instead of as a document
 * that silently lost its prose.
 */
export function undocumented(document: JsonSchema): string[] {
  const out: string[] = [];
  const paths = document.paths as Record<string, Record<string, JsonSchema>>;
  for (const [path, methods] of Object.entries(paths))
    for (const [method, op] of Object.entries(methods)) {
      const where = `${op.operationId} (${method.toUpperCase()} ${path})`;
      for (const parameter of (op.parameters ?? []) as JsonSchema[])
        if (!parameter.description)
          out.push(`${where}: the ${parameter.in} parameter ${parameter.name} has no description`);
      const bodies: [string, JsonSchema | undefined][] = [
        ["request body", (op.requestBody as JsonSchema | undefined)?.content as JsonSchema | undefined],
        ...Object.entries(op.responses as Record<string, JsonSchema>).map(
          ([status, response]): [string, JsonSchema | undefined] => [
            `${status} response`,
            response.content as JsonSchema | undefined,
          ],
        ),
      ];
      for (const [what, content] of bodies)
        for (const [type, media] of Object.entries(content ?? {}))
          if (!namedSchema((media as JsonSchema).schema))
            out.push(`${where}: the ${what} (${type}) is not a documented schema (no id)`);
    }
  return out;
}

/**
 * A `$ref` to a named component, or an error answer's envelope narrowed to its codes (the builder's
 * `allOf: [$ref, {error.code enum}]`, src/openapi/document.ts): the envelope is still the named one.
 */
function namedSchema(schema: unknown): boolean {
  if (typeof schema !== "object" || schema === null) return false;
  const { $ref, allOf } = schema as JsonSchema;
  if ($ref) return true;
  return Array.isArray(allOf) && typeof allOf[0] === "object" && Boolean((allOf[0] as JsonSchema).$ref);
}

/** A built document, refused when anything in it is undocumented (see `undocumented`). */
function checked(document: JsonSchema): JsonSchema {
  const problems = undocumented(document);
  if (problems.length > 0)
    throw new Error(
      `Undocumented in "${(document.info as DocumentInfo).title}" (document the schema in ` +
        `src/routes/reference/schemas/<room>.ts):\n${problems.join("\n")}`,
    );
  return document;
}

/**
 * The app's two OpenAPI documents, built from the `describe(id)` middleware in its routes and the
 * descriptions kept by id in src/routes/reference/ (`new ApiReference(app.routes, OPERATION_DOCS)`). Built in Node, not in the worker: `npm run docs:assets` writes
 * them where the worker serves them from (./assets.ts), and the tests build them to check what is
 * served. Operations that need the operator secret go to the operator document, every other one to
 * the public document.
 */
export class ApiReference {
  readonly #operations: DescribedOperation[];
  #public: JsonSchema | undefined;
  #operator: JsonSchema | undefined;

  constructor(routes: readonly RouteEntry[], docs: Readonly<Record<string, OperationDoc>>) {
    this.#operations = describedOperations(routes, docs);
  }

  /** Every described operation, public and operator, in route order. */
  get operations(): readonly DescribedOperation[] {
    return this.#operations;
  }

  /** The storefront's document, served at `/api/v1/openapi.json` and rendered at `/docs`. */
  publicDocument(): JsonSchema {
    this.#public ??= checked(
      buildDocument(
        INFO,
        this.#operations.filter((op) => op.spec.auth !== "operator"),
      ),
    );
    return this.#public;
  }

  /** The operator's document, served at `/api/v1/operator/openapi.json` behind the operator secret. */
  operatorDocument(): JsonSchema {
    this.#operator ??= checked(
      buildDocument(
        OPERATOR_INFO,
        this.#operations.filter((op) => op.spec.auth === "operator"),
      ),
    );
    return this.#operator;
  }
}
