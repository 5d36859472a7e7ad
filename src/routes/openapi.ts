import type { Context } from "hono";
import { Hono } from "../http/hono.ts";
import type { AppEnv } from "../http/app-env.ts";
import { openApiDocumentMissing } from "../http/errors.ts";
import { OPENAPI_ASSETS } from "../openapi/assets.ts";
import { describe } from "../openapi/describe.ts";

/**
 * Answers with one of the documents `npm run docs:assets` built from these routes (see
 * ../openapi/assets.ts), read through the ASSETS binding: the bytes are what `c.json` of the
 * built document wrote when the worker built it itself. None there (the step was skipped) is a
 * 500 that says so, logged once per request like any server error.
 */
async function document(c: Context<AppEnv>, path: string): Promise<Response> {
  const answer = await c.env.ASSETS.fetch(new Request(new URL(path, c.req.url)));
  if (!answer.ok) {
    await answer.body?.cancel();
    const requestId = c.get("requestId");
    const message = `${path} is not in the assets (ASSETS answered ${answer.status}): run npm run docs:assets`;
    console.error(JSON.stringify({ level: "error", error: "OpenApiDocumentMissing", message, request_id: requestId }));
    throw openApiDocumentMissing(requestId);
  }
  return c.body(await answer.arrayBuffer(), 200, { "Content-Type": "application/json; charset=utf-8" });
}

/**
 * `GET /api/v1/openapi.json`: the storefront's reference, mounted under the API so it shares its
 * prefix and any-origin CORS. `/docs` renders it; generate a client from it.
 */
export const openapi = new Hono<AppEnv>().get("/", describe("getOpenApiDocument"), (c) => {
  c.header("Cache-Control", "public, max-age=300");
  return document(c, OPENAPI_ASSETS.public);
});

/**
 * `GET /api/v1/operator/openapi.json`: the operator's reference. Mounted after the operator's
 * routes, so their middleware (the operator secret, `no-store`) guards it too.
 */
export const operatorOpenapi = new Hono<AppEnv>().get("/", describe("getOperatorOpenApiDocument"), (c) =>
  document(c, OPENAPI_ASSETS.operator),
);
