import type { OperationDoc } from "../../openapi/spec.ts";
import * as z from "zod/mini";
import { errors, OPERATOR_ERRORS } from "../../openapi/errors.ts";

/** An OpenAPI document, checked only at the top: the document tests and validator go deeper. */
const OpenApiDocumentSchema = z
  .looseObject({
    openapi: z.literal("3.1.0"),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.record(z.string(), z.unknown()),
  })
  .register(z.globalRegistry, {
    id: "OpenApiDocument",
    description: "An OpenAPI 3.1 document, generated from the routes and the zod schemas their handlers use.",
  });

/** The OpenAPI description of src/routes/openapi.ts's operations, by operationId (never in the Worker bundle). */
export const OPENAPI_DOCS = {
  getOpenApiDocument: {
    summary: "This OpenAPI document",
    description:
      "OpenAPI 3.1, generated from the routes and the zod schemas that validate requests and " +
      "shape responses. The operator's endpoints are not in it: they have their own document.",
    tag: "Service",
    auth: "none",
    responses: {
      200: { description: "The document.", schema: OpenApiDocumentSchema, headers: ["X-Request-Id", "Cache-Control"] },
    },
  },
  getOperatorOpenApiDocument: {
    summary: "The operator's OpenAPI document",
    description: "This document: the operator's token surface, apart from the storefront's reference.",
    tag: "Operator",
    auth: "operator",
    responses: {
      200: { description: "The document.", schema: OpenApiDocumentSchema, headers: ["X-Request-Id", "Cache-Control"] },
      ...errors(...OPERATOR_ERRORS),
    },
  },
} satisfies Record<string, OperationDoc>;
