import type { Context } from "hono";
import { Hono } from "../http/hono.ts";
import * as z from "zod/mini";
import type { AppEnv } from "../http/app-env.ts";
import { routeNotFound } from "../http/errors.ts";
import { describe } from "../openapi/describe.ts";

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

/** `/docs/{file}`: one of the reference's static files; any other name is 404 `route_not_found`. */
export const DocsFileParamsSchema = z.strictObject({
  file: z.string().check(z.regex(/^[a-z0-9][a-z0-9.-]*\.(?:js|css|svg)$/)),
});

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
  .get("/", describe("getRoot"), (c) => c.redirect("/docs", 302))
  .get("/docs", describe("getDocs"), (c) => asset(c, PAGES["/docs"]))
  .get("/docs/try", describe("getDocsTry"), (c) => asset(c, PAGES["/docs/try"]))
  .get("/docs/:file", describe("getDocsFile"), (c) => {
    if (!DocsFileParamsSchema.safeParse(c.req.param()).success) throw routeNotFound(c.req.path);
    return asset(c, c.req.path);
  })
  .get("/favicon.svg", describe("getFavicon"), (c) => asset(c, "/favicon.svg"));
