import { DurableObject } from "cloudflare:workers";
import { BrowseStore } from "./browse.ts";
import type { BrowseFilters } from "./browse-query.ts";
import type { FacetScope } from "./facet-index.ts";
import { type FacetCounting, FacetService, type FacetsReply } from "./facet-service.ts";

/**
 * Facet counts of one catalog version (FacetIndex), answered by a Durable Object named by that
 * version so the index is built once and held by one instance, not once per Worker isolate.
 * It keeps nothing in storage: the browse index in D1 is the record, and a new instance (after
 * eviction, or for another version) reads it again. A version never changes once published,
 * so the index never goes stale, and a rollback reaches the instance of the version it restores.
 *
 * Per answer: no storage read (one full-text statement when q is given); the build reads the
 * version's index once (facet-source.ts).
 */
export class FacetCounter extends DurableObject<Env> {
  readonly #service: FacetService;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#service = new FacetService(new BrowseStore(env.BROWSE));
  }

  facets(version: string, scope: FacetScope, filters: BrowseFilters): Promise<FacetsReply> {
    return this.#service.facets(version, scope, filters);
  }
}

/** The counter that holds `version`'s index. */
export function facetCounter(namespace: DurableObjectNamespace<FacetCounter>, version: string): FacetCounting {
  return namespace.get(namespace.idFromName(version));
}
