import type { Context } from "hono";
import { browseEngine } from "../catalog/browse-engine.ts";
import { browseFacets, browsePage } from "../catalog/browse-service.ts";
import type { Scope } from "../catalog/version-index.ts";
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
  "Cost: the version pointer plus one call to the version's facet counter, a Durable Object that holds the version's counting index in memory: no storage read per answer (with q, one D1 full-text statement returning the matches as bitmap words, at most one 32-bit word per 32 products). Counting visits the matches of every filter and, per filtered facet, those of every other filter (the only cost that grows with the matches: about 2 ms for the benchmark's three filters at 100,000 products); at most 100 values per facet (plus selected ones) are returned. Without q or filters on the whole catalog the counts are the index's own. The counter builds its index once per catalog version, from the browse index (one D1 batch).";

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
  return serveCatalogRead(c, browseCacheKey(q, q), (_store, meta) => browsePage(browseEngine(c.env.BROWSE_ENGINE, meta.version), meta, scope, q));
}

/** Facet counts of a scope. */
export function serveFacets(c: Context<CatalogEnv>, filters: BrowseFilters, scope: Scope): Promise<Response> {
  return serveCatalogRead(c, browseCacheKey(filters), (_store, meta) => browseFacets(browseEngine(c.env.BROWSE_ENGINE, meta.version), meta, scope, filters));
}
