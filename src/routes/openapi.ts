import { Hono } from "hono";
import * as z from "zod";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";
import { errors, TOKEN_ERRORS } from "../openapi/errors.ts";
import { apiReference } from "../openapi/openapi.ts";

/** An OpenAPI document, checked only at the top: the document tests and validator go deeper. */
const OpenApiDocumentSchema = z
  .looseObject({
    openapi: z.literal("3.1.0"),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.record(z.string(), z.unknown()),
  })
  .meta({
    id: "OpenApiDocument",
    description: "An OpenAPI 3.1 document, generated from the routes and the zod schemas their handlers use.",
  });

/**
 * `GET /api/v1/openapi.json`: the storefront's reference, mounted under the API so it shares its
 * prefix and any-origin CORS. `/docs` renders it; generate a client from it.
 */
export const openapi = new Hono<AppEnv>().get(
  "/",
  describe({
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    description:
      "OpenAPI 3.1, generated from the routes and the zod schemas that validate requests and " +
      "shape responses. The operator's endpoints are not in it: they have their own document.",
    tag: "Service",
    auth: "none",
    responses: {
      200: { description: "The document.", schema: OpenApiDocumentSchema, headers: ["X-Request-Id", "Cache-Control"] },
    },
  }),
  (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(apiReference.publicDocument());
  },
);

/**
 * `GET /api/v1/operator/openapi.json`: the operator's reference. Mounted after the operator's
 * routes, so their middleware (the operator secret, `no-store`) guards it too.
 */
export const operatorOpenapi = new Hono<AppEnv>().get(
  "/",
  describe({
    operationId: "getOperatorOpenApiDocument",
    summary: "The operator's OpenAPI document",
    description: "This document: the operator's token surface, apart from the storefront's reference.",
    tag: "Operator",
    auth: "operator",
    responses: {
      200: { description: "The document.", schema: OpenApiDocumentSchema, headers: ["X-Request-Id", "Cache-Control"] },
      ...errors(...TOKEN_ERRORS),
    },
  }),
  (c) => c.json(apiReference.operatorDocument()),
);
