import { DurableObject } from "cloudflare:workers";
import type { BrowseFilters, BrowsePageQuery } from "./browse-query.ts";
import { type BrowseReply, BrowseService, type Browsing } from "./browse-service.ts";
import { BrowseStore } from "./browse-source.ts";
import type { Scope } from "./version-index.ts";

/**
 * Browse of one catalog version (VersionIndex: filters, q, sorts, pages and facet counts),
 * answered by a Durable Object named by that version so the index is built once and held by one
 * instance, not once per Worker isolate. It keeps nothing in storage: the browse index in D1 is
 * the record, and a new instance (after eviction, or for another version) reads it again. A
 * version never changes once published, so the index never goes stale, and a rollback reaches
 * the instance of the version it restores.
 *
 * Per answer: no storage read; the build reads the version's index once (browse-source.ts).
 */
export class BrowseEngine extends DurableObject<Env> {
  readonly #service: BrowseService;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#service = new BrowseService(new BrowseStore(env.BROWSE));
  }

  page(version: string, scope: Scope, query: BrowsePageQuery): Promise<BrowseReply> {
    return this.#service.page(version, scope, query);
  }

  facets(version: string, scope: Scope, filters: BrowseFilters): Promise<BrowseReply> {
    return this.#service.facets(version, scope, filters);
  }
}

/** The engine that holds `version`'s index. */
export function browseEngine(namespace: DurableObjectNamespace<BrowseEngine>, version: string): Browsing {
  return namespace.get(namespace.idFromName(version));
}
