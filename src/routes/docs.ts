import { Hono } from "hono";
import { DOCS_HTML } from "../docs/page.ts";
import { DOCS_SCRIPT } from "../docs/script.ts";
import { DOCS_STYLES } from "../docs/styles.ts";
import type { AppEnv } from "../http/app-env.ts";
import { openApiDocument } from "../openapi/openapi.ts";

/** The reference's files change only with a deploy; a short max-age keeps a new deploy visible soon. */
const ASSET_CACHE = "public, max-age=300";

/** Scripts and styles only from this origin, calls only to this origin: the page works offline. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * The interactive reference, mounted at `/`. Its three files are bundled strings (a few KB), so
 * every asset comes from the worker itself and the bundle stays lean without a static-assets setup.
 */
export const docs = new Hono<AppEnv>()
  .get("/", (c) => c.redirect("/docs", 302))
  .get("/docs", (c) => {
    c.header("Cache-Control", ASSET_CACHE);
    c.header("Content-Security-Policy", CSP);
    return c.html(DOCS_HTML);
  })
  .get("/docs/app.js", (c) => {
    c.header("Cache-Control", ASSET_CACHE);
    return c.body(DOCS_SCRIPT, 200, { "Content-Type": "text/javascript; charset=utf-8" });
  })
  .get("/docs/styles.css", (c) => {
    c.header("Cache-Control", ASSET_CACHE);
    return c.body(DOCS_STYLES, 200, { "Content-Type": "text/css; charset=utf-8" });
  });

/** `GET /api/v1/openapi.json`, mounted under the API so it shares its CORS and prefix. */
export const openapi = new Hono<AppEnv>().get("/", (c) => {
  c.header("Cache-Control", "public, max-age=300");
  return c.json(openApiDocument());
});
