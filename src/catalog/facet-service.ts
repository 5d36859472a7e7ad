import type { BrowseStore } from "./browse.ts";
import type { BrowseFilters } from "./browse-query.ts";
import { CatalogError, type CatalogFailureCode } from "./errors.ts";
import { FacetIndex, type FacetScope } from "./facet-index.ts";
import { readFacetColumns, searchMatches } from "./facet-source.ts";
import type { VersionMeta } from "./layout.ts";

/**
 * Facet counts of catalog versions: each version's FacetIndex built once from its browse index
 * and answered from memory. The FacetCounter Durable Object (facet-counter.ts) runs one per
 * version; tests and the measuring script run it directly over a D1 binding.
 */

/** A failure crosses RPC as data: a thrown error would lose its class and its parameter. */
export type FacetsReply = { ok: true; body: string } | { ok: false; code: CatalogFailureCode; message: string; param?: string };

/** What answers facets for the Worker: the counter of a version (production) or any stand-in with the same method. */
export interface FacetCounting {
  facets(version: string, scope: FacetScope, filters: BrowseFilters): Promise<FacetsReply>;
}

/** Builds a version's index once (a failed build is retried by the next call) and answers from it. */
export class FacetService implements FacetCounting {
  readonly #store: BrowseStore;
  readonly #built = new Map<string, Promise<FacetIndex>>();

  constructor(store: BrowseStore) {
    this.#store = store;
  }

  index(version: string): Promise<FacetIndex> {
    let built = this.#built.get(version);
    if (!built) {
      built = readFacetColumns(this.#store, version).then((columns) => new FacetIndex(columns));
      // One version per instance in production; tests share a service across versions, so keep the last only.
      this.#built.clear();
      this.#built.set(version, built);
      built.catch(() => this.#built.delete(version));
    }
    return built;
  }

  async facets(version: string, scope: FacetScope, filters: BrowseFilters): Promise<FacetsReply> {
    try {
      const index = await this.index(version);
      const matches = filters.words.length > 0 ? await searchMatches(this.#store, version, filters.words, index.size) : null;
      return { ok: true, body: index.facets(scope, filters, matches) };
    } catch (error) {
      if (error instanceof CatalogError) return { ok: false, code: error.code, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) };
      throw error;
    }
  }
}

/**
 * `GET /products/facets` and `GET /collections/{handle}/facets`: disjunctive counts (contract
 * section 7), from the version's counter.
 */
export async function browseFacets(counter: FacetCounting, meta: VersionMeta, scope: FacetScope, filters: BrowseFilters): Promise<string> {
  const reply = await counter.facets(meta.version, scope, filters);
  if (reply.ok) return reply.body;
  throw new CatalogError(reply.code, reply.message, reply.param);
}
