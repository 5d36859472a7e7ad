import type { Context } from "hono";
import { browseEngine, type Placement, type RequestPlace } from "../browse/engine.ts";
import { browseFacets, browsePage } from "../browse/service.ts";
import type { Scope } from "../browse/index/version-index.ts";
import { browseCacheKey, type BrowseFilters, type BrowsePageQuery, inCurrency, isPlainList } from "../browse/query.ts";
import type { PageQuery } from "../catalog/api.ts";
import type { ListOptions } from "../catalog/pages.ts";
import type { CatalogStore } from "../catalog/store.ts";
import type { VersionMeta } from "../catalog/layout.ts";
import { type CatalogEnv, type Paging, serveCatalogRead } from "../http/catalog-read.ts";
import { overlaidBody } from "../catalog/store.ts";
import { type LiveStock, liveStock } from "../browse/live-stock.ts";

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
  "replicas of a version answer identically. The snapshot carries each chunk's SHA-256, checked " +
  "before it is decoded: a damaged chunk (or an item block that fails to inflate) is logged and " +
  "the index read from D1 instead, so damage costs time, never a wrong answer. A live version " +
  "without its browse index answers 503 `browse_unavailable` (a full publish's plain list still answers). " +
  "Live stock: the `available` and `option.*` filters follow it as the items do (section " +
  "Live stock of the guide): the Worker sends the engine the products live stock has changed " +
  "(read once per stock overlay generation per isolate: at most a few KV reads a second), and " +
  "the engine applies them as a delta on its bitmaps, made once per generation. " +
  "Without q, filters or sort the answer is the " +
  "plain list, read from KV as `GET /products` without parameters (after a change batch, " +
  "section 11, from the version's browse engine: the same answer, since a batch writes no list " +
  "chunks).";
export const FACETS_COST =
  "Cost: the version pointer plus one call to the version's browse engine (see the product " +
  "list): no storage read per answer. Each set counted (the matches of every filter, and " +
  "per filtered facet the matches of the other filters) is counted over the fewer of its " +
  "own products and, for a set whose counts the engine knows (the catalog, a one-value " +
  "filter or a collection holding more than 1/32 of the products, counted once and kept), " +
  "that set's other products; so a count never visits more than half the catalog: at " +
  "100,000 products about 1 ms for three filters, 0.1 ms for available=true or one common " +
  "tag. Counts follow live stock as the product list's filters do: each count is moved from " +
  "the file's to live stock's over the few products live stock has changed. " +
  "At most 100 values per facet (plus selected ones) are returned. A live version without its " +
  "browse index answers 503 `browse_unavailable`.";

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

/** A page as the version's browse engine answers it, its items under live stock's overlay. */
async function engineBody(
  c: Context<CatalogEnv>,
  store: CatalogStore,
  meta: VersionMeta,
  scope: Scope,
  q: BrowsePageQuery,
): Promise<string> {
  return overlaidBody(
    await browsePage(browseEngine(c.env.BROWSE_ENGINE, meta, placement(c)), meta, scope, q),
    store.overlay,
  );
}

/** A page of products or of a collection's products, plain or browsed. */
export function serveBrowsePage(
  c: Context<CatalogEnv>,
  q: BrowsePageQuery,
  scope: Scope,
  plain: Plain,
): Promise<Response> {
  // A collection's page is its `products` member; either way `Link` names the neighbouring pages.
  const paging: Paging = scope.collection === undefined ? { cursor: "handle" } : { cursor: "handle", at: "products" };
  if (isPlainList(q)) {
    const query = plainQuery(q);
    return serveCatalogRead(
      c,
      { ...query, include: query.include?.join(",") },
      // A change batch's version writes no list chunks (docs/decisions/0015): its engine answers.
      (store, meta) => (meta.browse_overlay ? engineBody(c, store, meta, scope, q) : plain(store, meta, query)),
      // A plain page's items show products' availability alone.
      { stock: "items", paging },
    );
  }
  // Items follow live stock (the overlay), and so do the engine's filters and facet counts (LiveStock).
  return serveCatalogRead(
    c,
    browseCacheKey(q, q),
    async (store, meta) =>
      engineBody(c, store, meta, scope, withStock(inCurrency(q, meta.currency), await liveStock(store, meta))),
    { stock: "all", paging },
  );
}

/** Facet counts of a scope. */
export function serveFacets(c: Context<CatalogEnv>, filters: BrowseFilters, scope: Scope): Promise<Response> {
  return serveCatalogRead(
    c,
    browseCacheKey(filters),
    async (store, meta) =>
      browseFacets(
        browseEngine(c.env.BROWSE_ENGINE, meta, placement(c)),
        meta,
        scope,
        withStock(inCurrency(filters, meta.currency), await liveStock(store, meta)),
      ),
    { stock: "all" },
  );
}

/** `filters` with live stock's view, when it changes anything. */
function withStock<F extends BrowseFilters>(filters: F, stock: LiveStock | undefined): F {
  return stock ? { ...filters, stock } : filters;
}
