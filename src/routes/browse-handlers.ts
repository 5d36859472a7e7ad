import type { Context } from "hono";
import { browseEngine, type Placement, type RequestPlace } from "../browse/engine.ts";
import { browseFacets, browsePage } from "../browse/service.ts";
import type { Scope } from "../browse/index/version-index.ts";
import { browseCacheKey, type BrowseFilters, type BrowsePageQuery, inCurrency, isPlainList } from "../browse/query.ts";
import type { PageQuery } from "../catalog/api.ts";
import type { ListOptions } from "../catalog/pages.ts";
import type { CatalogStore } from "../catalog/store.ts";
import type { VersionMeta } from "../catalog/layout.ts";
import { type CatalogEnv, serveCatalogRead } from "../http/catalog-read.ts";
import { overlaidBody } from "../catalog/store.ts";

/**
 * The handlers the product and collection routes share for browse: a plain list (no q, filter
 * or sort) keeps its KV path and cache key; anything else is answered by the version's
 * BrowseEngine (src/browse/engine.ts).
 */

/** Browse decisions for the OpenAPI descriptions. */
export const BROWSE_COST =
  "Cost, whatever the catalog size: one KV read of the version pointer and one call to a " +
  "browse engine of the version (a Durable Object replica in the request's region, picked " +
  "by a hash of the request), which holds the version's browse index in memory (written " +
  "with the catalog version, so a reader never mixes versions and a rollback restores it): " +
  "no storage read per answer. The matches are bitmap ANDs; the page walks the sort's " +
  "precomputed order (ties in catalog or collection order) until it has `limit` + 1 " +
  "matches after the cursor, so only `count` and a sparse match set visit more than the " +
  "page. An engine reads its version's index snapshot (R2) once, on its first request; " +
  "replicas of a version answer identically. Without q, filters or sort the answer is the " +
  "plain list, read from KV as `GET /products` without parameters.";
export const FACETS_COST =
  "Cost: the version pointer plus one call to the version's browse engine (see the product " +
  "list): no storage read per answer. Each set counted (the matches of every filter, and " +
  "per filtered facet the matches of the other filters) is counted over the fewer of its " +
  "own products and, for a set whose counts the engine knows (the catalog, a one-value " +
  "filter or a collection holding more than 1/32 of the products, counted once and kept), " +
  "that set's other products; so a count never visits more than half the catalog: at " +
  "100,000 products about 1 ms for three filters, 0.1 ms for available=true or one common " +
  "tag. At most 100 values per facet (plus selected ones) are returned.";

type Plain = (store: CatalogStore, meta: VersionMeta, q: PageQuery & ListOptions) => Promise<string>;

function plainQuery(q: BrowsePageQuery): PageQuery & ListOptions {
  return {
    limit: q.limit,
    ...(q.starting_after !== undefined ? { starting_after: q.starting_after } : {}),
    ...(q.ending_before !== undefined ? { ending_before: q.ending_before } : {}),
    ...(q.image ? { include: ["image"] as const } : {}),
  };
}

/** Which replica of the version's engine answers this request (src/browse/engine.ts). */
function placement(c: Context<CatalogEnv>): Placement {
  const url = new URL(c.req.url);
  return {
    cf: c.req.raw.cf as RequestPlace | undefined,
    key: url.pathname + url.search,
    replicas: c.env.BROWSE_REPLICAS,
  };
}

/** A page of products or of a collection's products, plain or browsed. */
export function serveBrowsePage(
  c: Context<CatalogEnv>,
  q: BrowsePageQuery,
  scope: Scope,
  plain: Plain,
): Promise<Response> {
  if (isPlainList(q)) {
    const query = plainQuery(q);
    return serveCatalogRead(c, { ...query, include: query.include?.join(",") }, (store, meta) =>
      plain(store, meta, query),
    );
  }
  // Items follow live stock (the overlay); the engine's filters and facet counts follow the version's file.
  return serveCatalogRead(c, browseCacheKey(q, q), async (store, meta) =>
    overlaidBody(
      await browsePage(
        browseEngine(c.env.BROWSE_ENGINE, meta, placement(c)),
        meta,
        scope,
        inCurrency(q, meta.currency),
      ),
      store.overlay,
    ),
  );
}

/** Facet counts of a scope. */
export function serveFacets(c: Context<CatalogEnv>, filters: BrowseFilters, scope: Scope): Promise<Response> {
  return serveCatalogRead(c, browseCacheKey(filters), (_store, meta) =>
    browseFacets(
      browseEngine(c.env.BROWSE_ENGINE, meta, placement(c)),
      meta,
      scope,
      inCurrency(filters, meta.currency),
    ),
  );
}
