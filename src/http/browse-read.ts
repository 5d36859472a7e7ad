import type { MiddlewareHandler } from "hono";
import type { CatalogEnv } from "./catalog-read.ts";
import { CACHE_MISSING } from "./cache.ts";
import { ApiError, catalogUnavailable, fromCatalogError, resourceMissing } from "./errors.ts";
import type { Validated } from "./validate.ts";
import { CatalogError } from "../catalog/errors.ts";
import { isHandle } from "../catalog/schema.ts";
import { CatalogStore, pointerTtlMs } from "../catalog/store.ts";

/**
 * `catalogRead` for the browse endpoints, whose filters repeat (`tag=a&tag=b`) and whose option
 * filters are named by the catalog (`option.size`), so the strict one-value-per-name query parser
 * cannot read them. Same order as catalogRead: the path handle (no storage touched), the pointer
 * (503 when nothing is published), then the query, whose 400s carry the version read.
 */

/** What a client sends: each parameter once, or a list for the repeatable ones. */
export type BrowseQueryInput = Record<string, string | string[]>;

function withVersion(error: ApiError, version: string): ApiError {
  return new ApiError(error.status, error.body, { ...error.headers, "X-Catalog-Version": version });
}

export function browseRead<Q>(parse: (pairs: Iterable<[string, string]>) => Q): MiddlewareHandler<CatalogEnv, string, Validated<"query", BrowseQueryInput, Q>> {
  return async (c, next) => {
    const handle = c.req.param("handle");
    if (handle !== undefined && !isHandle(handle)) {
      c.set("cacheStatus", "bypass");
      const error = resourceMissing("No resource has this handle: handles are lower case words joined by hyphens.", "handle");
      throw new ApiError(error.status, error.body, { ...error.headers, "Cache-Control": CACHE_MISSING });
    }
    const store = new CatalogStore(c.env.CATALOG, { pointerTtlMs: pointerTtlMs(c.env.CATALOG_POINTER_TTL_MS) });
    const meta = await store.currentMeta();
    if (!meta) {
      c.set("cacheStatus", "bypass");
      const error = catalogUnavailable();
      throw new ApiError(error.status, error.body, { ...error.headers, "Cache-Control": "no-store" });
    }
    try {
      c.req.addValidatedData("query", parse(new URL(c.req.url).searchParams) as object);
    } catch (error) {
      if (error instanceof CatalogError) throw withVersion(fromCatalogError(error), meta.version);
      throw error instanceof ApiError ? withVersion(error, meta.version) : error;
    }
    c.set("catalogStore", store);
    c.set("catalogMeta", meta);
    await next();
  };
}
