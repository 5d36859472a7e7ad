import { type Context, Hono } from "hono";
import * as z from "zod/mini";
import type { AppEnv } from "../http/app-env.ts";
import { routeNotFound } from "../http/errors.ts";
import { describe } from "../openapi/describe.ts";
import { errors } from "../openapi/errors.ts";
import type { ResponseSpec } from "../openapi/spec.ts";

/** A file of the reference pages: markup, script, style sheet or icon. */
const DocsAssetSchema = z.string().check(z.minLength(1)).register(z.globalRegistry, {
  id: "DocsAsset",
  description: "A file of the API reference or the catalog walk-through.",
});

/** `/docs/{file}`: one of the reference's static files; any other name is 404 `route_not_found`. */
const DocsFileParamsSchema = z.strictObject({
  file: z
    .string()
    .check(z.regex(/^[a-z0-9][a-z0-9.-]*\.(?:js|css|svg)$/))
    .register(z.globalRegistry, {
      description: "A file name such as `scalar.js`, `reference.js`, `try.js` or `docs.css`.",
      example: "try.js",
    }),
});

/** The reference's files are static assets that revalidate with their ETag. */
const DOCS_HEADERS = ["X-Request-Id", "Cache-Control", "ETag"] as const;
const NOT_MODIFIED: ResponseSpec = {
  description: "`If-None-Match` matched the file's ETag: no body.",
  headers: DOCS_HEADERS,
};
const IF_NONE_MATCH = [{ name: "If-None-Match" }] as const;

function file(description: string, contentType: string): ResponseSpec {
  return { description, schema: DocsAssetSchema, contentType, headers: DOCS_HEADERS };
}

/** The reference's files change only with a deploy; a short max-age keeps a new deploy visible soon (ETags make revalidation cheap). */
const ASSET_CACHE = "public, max-age=300";

/**
 * Everything from this origin, nothing from anywhere else: the page works offline and the
 * renderer cannot reach a CDN, a proxy or a telemetry host even if configured to. Styles allow
 * 'unsafe-inline' because the renderer injects its style sheet from its script; scripts do not.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** The two pages, by the path people type; their files live under public/docs/. */
const PAGES = { "/docs": "/docs/index.html", "/docs/try": "/docs/try.html" } as const;

/**
 * Answers with a file of `public/` (Workers Static Assets, through the ASSETS binding), with the
 * reference's headers. A file that is not there is the contract's 404 `route_not_found`.
 * Conditional requests pass through, so an `If-None-Match` that still matches answers 304.
 */
async function asset(c: Context<AppEnv>, path: string): Promise<Response> {
  const url = new URL(path, c.req.url);
  const answer = await c.env.ASSETS.fetch(new Request(url, { method: c.req.method, headers: c.req.raw.headers }));
  if (answer.status === 404) throw routeNotFound(c.req.path);
  const res = new Response(answer.body, answer);
  res.headers.set("Cache-Control", ASSET_CACHE);
  res.headers.set("Content-Security-Policy", DOCS_CSP);
  return res;
}

/**
 * The API reference (`/docs`, rendered by Scalar from `/api/v1/openapi.json`), the catalog
 * walk-through (`/docs/try`) and their files, mounted at `/`. The files are static assets, not
 * bundled strings, so the multi-MB renderer never counts against the worker's bundle.
 */
export const docs = new Hono<AppEnv>()
  .get(
    "/",
    describe({
      operationId: "getRoot",
      summary: "Redirect to the reference",
      tag: "Service",
      auth: "none",
      responses: { 302: { description: "To `/docs`.", headers: ["X-Request-Id", "Location"] } },
    }),
    (c) => c.redirect("/docs", 302),
  )
  .get(
    "/docs",
    describe({
      operationId: "getDocs",
      summary: "API reference",
      description:
        "This document rendered by [Scalar](https://github.com/scalar/scalar) (served from this " +
        "worker, never a CDN): every operation with its parameters, response examples, curl and " +
        "other client snippets, search, and a client whose “Test Request” calls this same " +
        "server. Under `npm run dev` the client's Bearer token is the development token " +
        "`sf_dev_LocalToken_A1`. The page's Content-Security-Policy keeps every request on this " +
        "origin. `/docs#authentication` opens the authentication section.",
      tag: "Service",
      auth: "none",
      requestHeaders: IF_NONE_MATCH,
      responses: { 200: file("The reference page.", "text/html"), 304: NOT_MODIFIED },
    }),
    (c) => asset(c, PAGES["/docs"]),
  )
  .get(
    "/docs/try",
    describe({
      operationId: "getDocsTry",
      summary: "Try the catalog",
      description:
        "The seed's walk-through: list the products, pick one, choose its size and colour and " +
        "add it to the cart; an available variant answers 200, a sold-out one 404 Sold out. The " +
        "page gets its cart as a storefront would: a shopper token from `POST /api/v1/carts`, " +
        "kept in the browser's `localStorage` (and replaced by a renewed one when an answer " +
        "carries `Cart-Token`); any other token may be pasted. Every call goes to this same server.",
      tag: "Service",
      auth: "none",
      requestHeaders: IF_NONE_MATCH,
      responses: { 200: file("The walk-through page.", "text/html"), 304: NOT_MODIFIED },
    }),
    (c) => asset(c, PAGES["/docs/try"]),
  )
  .get(
    "/docs/:file",
    describe({
      operationId: "getDocsFile",
      summary: "A file of the reference pages",
      description:
        "Scripts and style sheets of `/docs` and `/docs/try`, served as static assets with a " +
        "five-minute `Cache-Control` and an ETag.",
      tag: "Service",
      auth: "none",
      params: DocsFileParamsSchema,
      requestHeaders: IF_NONE_MATCH,
      responses: {
        200: file("The file, as `text/javascript`, `text/css` or `image/svg+xml`.", "text/javascript"),
        304: NOT_MODIFIED,
        ...errors("route_not_found"),
      },
    }),
    (c) => {
      if (!DocsFileParamsSchema.safeParse(c.req.param()).success) throw routeNotFound(c.req.path);
      return asset(c, c.req.path);
    },
  )
  .get(
    "/favicon.svg",
    describe({
      operationId: "getFavicon",
      summary: "The site icon",
      tag: "Service",
      auth: "none",
      requestHeaders: IF_NONE_MATCH,
      responses: { 200: file("An SVG icon.", "image/svg+xml"), 304: NOT_MODIFIED },
    }),
    (c) => asset(c, "/favicon.svg"),
  );
