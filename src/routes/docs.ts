import { Hono } from "hono";
import * as z from "zod";
import { DOCS_HTML } from "../docs/page.ts";
import { DOCS_SCRIPT } from "../docs/script.ts";
import { DOCS_STYLES } from "../docs/styles.ts";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";

const DocsAssetSchema = z.string().min(1).meta({ id: "DocsAsset", description: "A file of the interactive reference." });

/** The reference's files change only with a deploy; a short max-age keeps a new deploy visible soon. */
const ASSET_CACHE = "public, max-age=300";

/** Scripts and styles only from this origin, calls only to this origin: the page works offline. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The interactive reference, mounted at `/`. Its three files are bundled strings (a few KB), so
 * every asset comes from the worker itself and the bundle stays lean without a static-assets setup.
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
  .get("/docs", describe({ operationId: "getDocs", summary: "Interactive reference", tag: "Service", auth: "none", responses: { 200: { description: "The reference page.", schema: DocsAssetSchema, contentType: "text/html", headers: ["X-Request-Id", "Cache-Control"] } } }), (c) => {
    c.header("Cache-Control", ASSET_CACHE);
    c.header("Content-Security-Policy", CSP);
    return c.html(DOCS_HTML);
  })
  .get("/docs/app.js", describe({ operationId: "getDocsScript", summary: "Script of the reference", tag: "Service", auth: "none", responses: { 200: { description: "The script.", schema: DocsAssetSchema, contentType: "text/javascript", headers: ["X-Request-Id", "Cache-Control"] } } }), (c) => {
    c.header("Cache-Control", ASSET_CACHE);
    return c.body(DOCS_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  })
  .get("/docs/styles.css", describe({ operationId: "getDocsStyles", summary: "Style sheet of the reference", tag: "Service", auth: "none", responses: { 200: { description: "The style sheet.", schema: DocsAssetSchema, contentType: "text/css", headers: ["X-Request-Id", "Cache-Control"] } } }), (c) => {
    c.header("Cache-Control", ASSET_CACHE);
    return c.body(DOCS_STYLES, 200, { "Content-Type": "text/css; charset=utf-8" });
  });
