import type { Context } from "hono";
import type { z } from "zod";
import type { AppEnv } from "../http/app-env.ts";
import { CACHE_MISSING, CACHE_OK, catalogCacheKey, conditional, edgeCache, JSON_CONTENT_TYPE, strongEtag } from "../http/cache.ts";
import { ApiError, catalogUnavailable, resourceMissing } from "../http/errors.ts";
import { parseQuery } from "../http/validate.ts";
import type { VersionMeta } from "./layout.ts";
import { isHandle } from "./schema.ts";
import { CatalogStore } from "./store.ts";

/** What a catalog route supplies: its query schema and how to build the body. */
export interface CatalogRead<S extends z.ZodType> {
  /** The path handle, checked before any storage is touched. */
  handle?: string;
  query: S;
  body: (store: CatalogStore, meta: VersionMeta, query: z.infer<S>) => Promise<string>;
}

function withHeaders(error: ApiError, headers: Record<string, string>): ApiError {
  return new ApiError(error.status, error.body, { ...error.headers, ...headers });
}

async function render<S extends z.ZodType>(read: CatalogRead<S>, store: CatalogStore, meta: VersionMeta, query: z.infer<S>): Promise<Response> {
  const headers = { "Content-Type": JSON_CONTENT_TYPE, "X-Catalog-Version": meta.version };
  try {
    const body = await read.body(store, meta, query);
    return new Response(body, { status: 200, headers: { ...headers, "Cache-Control": CACHE_OK, ETag: await strongEtag(body) } });
  } catch (error) {
    // 404s are answers about this catalog version, so they are cached like 200s (for less time).
    if (error instanceof ApiError && error.status === 404) {
      return new Response(JSON.stringify({ error: error.body }), { status: 404, headers: { ...headers, "Cache-Control": CACHE_MISSING } });
    }
    throw error instanceof ApiError ? withHeaders(error, { "X-Catalog-Version": meta.version }) : error;
  }
}

/** Stores in the background when the runtime gives an execution context, else before answering. */
async function keepInCache(c: Context<AppEnv>, cache: Cache, key: Request, response: Response): Promise<void> {
  let ctx: Pick<ExecutionContext, "waitUntil"> | undefined;
  try {
    ctx = c.executionCtx;
  } catch {
    ctx = undefined;
  }
  if (ctx) ctx.waitUntil(cache.put(key, response));
  else await cache.put(key, response);
}

/**
 * Every anonymous catalog read goes through here: handle check (no storage), one pointer read,
 * the strict query, then the Workers Cache API under a key holding the version, and only on a
 * miss the store. Conditional requests are answered from whichever copy is at hand.
 */
export async function serveCatalogRead<S extends z.ZodType>(c: Context<AppEnv>, read: CatalogRead<S>): Promise<Response> {
  if (read.handle !== undefined && !isHandle(read.handle)) {
    c.set("cacheStatus", "bypass");
    throw withHeaders(resourceMissing("No resource has this handle: handles are lower case words joined by hyphens.", "handle"), {
      "Cache-Control": CACHE_MISSING,
    });
  }
  const store = new CatalogStore(c.env.CATALOG);
  const meta = await store.currentMeta();
  if (!meta) {
    c.set("cacheStatus", "bypass");
    throw withHeaders(catalogUnavailable(), { "Cache-Control": "no-store" });
  }
  let query: z.infer<S>;
  try {
    query = parseQuery(c, read.query);
  } catch (error) {
    throw error instanceof ApiError ? withHeaders(error, { "X-Catalog-Version": meta.version }) : error;
  }
  const cache = edgeCache();
  const key = catalogCacheKey(new URL(c.req.url).origin, meta.version, c.req.path, query as Record<string, unknown>);
  const hit = cache ? await cache.match(key) : undefined;
  if (hit) {
    c.set("cacheStatus", "hit");
    return conditional(hit, c.req.header("If-None-Match"));
  }
  c.set("cacheStatus", cache ? "miss" : "bypass");
  const response = await render(read, store, meta, query);
  if (cache) await keepInCache(c, cache, key, response.clone());
  return conditional(response, c.req.header("If-None-Match"));
}
