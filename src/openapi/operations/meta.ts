import * as z from "zod";
import type { OperationSpec } from "../spec.ts";

/** `GET /api/v1/health`: the route answers it without touching storage. */
export const HealthSchema = z
  .strictObject({ status: z.literal("ok") })
  .meta({ id: "Health", description: "The worker is up. Touches no storage.", example: { status: "ok" } });

/** The OpenAPI document itself, checked only at the top: its own structure test goes deeper. */
export const OpenApiDocumentSchema = z
  .looseObject({
    openapi: z.literal("3.1.0"),
    info: z.looseObject({ title: z.string(), version: z.string() }),
    paths: z.record(z.string(), z.record(z.string(), z.unknown())),
    components: z.record(z.string(), z.unknown()),
  })
  .meta({ id: "OpenApiDocument", description: "This document: OpenAPI 3.1, generated from the zod schemas the handlers use." });

/** Markup, script or style sheet of the interactive reference. */
export const DocsAssetSchema = z.string().min(1).meta({ id: "DocsAsset", description: "A file of the interactive reference." });

/** The service's own operations: health, this document and the interactive reference. */
export const metaOperations: OperationSpec[] = [
  {
    method: "get",
    path: "/api/v1/health",
    operationId: "getHealth",
    summary: "Health check",
    description: "Answers without touching any binding: for readiness probes.",
    tag: "Service",
    auth: "none",
    responses: { 200: { description: "The worker is up.", schema: HealthSchema, headers: ["X-Request-Id", "Cache-Control"] } },
  },
  {
    method: "get",
    path: "/api/v1/openapi.json",
    operationId: "getOpenApiDocument",
    summary: "This OpenAPI document",
    description: "OpenAPI 3.1, generated from the same zod schemas that validate requests and shape responses.",
    tag: "Service",
    auth: "none",
    responses: { 200: { description: "The document.", schema: OpenApiDocumentSchema, headers: ["X-Request-Id", "Cache-Control"] } },
  },
  {
    method: "get",
    path: "/",
    operationId: "getRoot",
    summary: "Redirect to the reference",
    tag: "Service",
    auth: "none",
    responses: { 302: { description: "To `/docs`.", headers: ["X-Request-Id", "Location"] } },
  },
  {
    method: "get",
    path: "/docs",
    operationId: "getDocs",
    summary: "Interactive reference",
    description: "Every operation of this document, with a “try it” form that calls this same server. No asset comes from anywhere else.",
    tag: "Service",
    auth: "none",
    responses: { 200: { description: "The reference page.", schema: DocsAssetSchema, contentType: "text/html", headers: ["X-Request-Id", "Cache-Control"] } },
  },
  {
    method: "get",
    path: "/docs/app.js",
    operationId: "getDocsScript",
    summary: "Script of the reference",
    tag: "Service",
    auth: "none",
    responses: { 200: { description: "The script.", schema: DocsAssetSchema, contentType: "text/javascript", headers: ["X-Request-Id", "Cache-Control"] } },
  },
  {
    method: "get",
    path: "/docs/styles.css",
    operationId: "getDocsStyles",
    summary: "Style sheet of the reference",
    tag: "Service",
    auth: "none",
    responses: { 200: { description: "The style sheet.", schema: DocsAssetSchema, contentType: "text/css", headers: ["X-Request-Id", "Cache-Control"] } },
  },
];
