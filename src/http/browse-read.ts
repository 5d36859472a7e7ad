import type { MiddlewareHandler } from "hono";
import { type CatalogEnv, catalogQuery, catalogReadWith } from "./catalog-read.ts";
import type { Validated } from "./validate.ts";

/**
 * `catalogRead` for the browse endpoints, whose filters repeat (`tag=a&tag=b`) and whose option
 * filters are named by the catalog (`option.size`), so the strict one-value-per-name query parser
 * cannot read them. The same shared step (catalogReadWith): the path handle, the pointer, then
 * the query, whose 400s carry the version read.
 */

/** What a client sends: each parameter once, or a list for the repeatable ones. */
export type BrowseQueryInput = Record<string, string | string[]>;

export function browseRead<Q>(
  parse: (pairs: Iterable<[string, string]>) => Q,
): MiddlewareHandler<CatalogEnv, string, Validated<"query", BrowseQueryInput, Q>> {
  return catalogReadWith<BrowseQueryInput, Q>((c) => parse(catalogQuery(c)));
}
