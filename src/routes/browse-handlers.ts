import type { Context } from "hono";
import { BrowseStore, browsePage, type Scope } from "../catalog/browse.ts";
import { facetCounter } from "../catalog/facet-counter.ts";
import { browseFacets } from "../catalog/facet-service.ts";
import { browseCacheKey, type BrowseFilters, type BrowsePageQuery, isPlainList } from "../catalog/browse-query.ts";
import type { PageQuery } from "../catalog/api.ts";
import type { ListOptions } from "../catalog/pages.ts";
import type { CatalogStore } from "../catalog/store.ts";
import type { VersionMeta } from "../catalog/layout.ts";
import { type CatalogEnv, serveCatalogRead } from "../http/catalog-read.ts";

/**
 * The handlers the product and collection routes share for browse: a plain list (no q, filter
 * or sort) keeps its KV path and cache key; anything else reads the D1 browse index.
 */

/** Browse decisions for the OpenAPI descriptions. */
export const BROWSE_COST =
  "Cost, whatever the catalog size: one KV read of the version pointer and ONE D1 batch (one round trip) of at most 3 statements returning at most limit + 3 rows, over the browse index written with the catalog version (so a reader never mixes versions and a rollback restores it). Only counting (`count`, relevance, the sort of the matches) visits every match, as narrow rows; item JSON is read for the page's rows only; a sorted page without filters reads limit + 2 rows through that sort's index. Without q, filters or sort the answer is the plain list (KV, section 2).";
export const FACETS_COST =
  "Cost: the version pointer plus ONE D1 batch of at most 14 statements (the matches of every filter, counted once for every facet without a filter, then one statement per filtered facet) returning at most 100 values per facet (plus selected ones); only the counting visits every match. Without q or filters (the landing state of a category page), and on the whole catalog with one filter of one value (its first click), it is one row, counted at publish.";

type Plain = (store: CatalogStore, meta: VersionMeta, q: PageQuery & ListOptions) => Promise<string>;

function plainQuery(q: BrowsePageQuery): PageQuery & ListOptions {
  return {
    limit: q.limit,
    ...(q.starting_after !== undefined ? { starting_after: q.starting_after } : {}),
    ...(q.ending_before !== undefined ? { ending_before: q.ending_before } : {}),
    ...(q.image ? { include: ["image"] as const } : {}),
  };
}

/** A page of products or of a collection's products, plain or browsed. */
export function serveBrowsePage(c: Context<CatalogEnv>, q: BrowsePageQuery, scope: Scope, plain: Plain): Promise<Response> {
  if (isPlainList(q)) {
    const query = plainQuery(q);
    return serveCatalogRead(c, { ...query, include: query.include?.join(",") }, (store, meta) => plain(store, meta, query));
  }
  return serveCatalogRead(c, browseCacheKey(q, q), (_store, meta) => browsePage(new BrowseStore(c.env.BROWSE), meta, scope, q));
}

/** Facet counts of a scope. */
export function serveFacets(c: Context<CatalogEnv>, filters: BrowseFilters, scope: Scope): Promise<Response> {
  return serveCatalogRead(c, browseCacheKey(filters), (_store, meta) => browseFacets(facetCounter(c.env.FACETS, meta.version), meta, scope, filters));
}
