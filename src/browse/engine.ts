import { DurableObject } from "cloudflare:workers";
import type { BrowseFilters, BrowsePageQuery } from "./query.ts";
import { type BrowseReply, BrowseService, type Browsing } from "./service.ts";
import { browseRegion, type Placement, pickReplica, replicaName } from "./placement.ts";
import { BrowseStore } from "./source.ts";
import type { Scope } from "./index/version-index.ts";

/**
 * Browse of one catalog version (VersionIndex: filters, q, sorts, pages and facet counts),
 * answered by Durable Objects named by that version so the index is built once per object and
 * held there, not once per Worker isolate. It keeps nothing in storage: the version's snapshot in
 * R2 (or, without one, its browse index in D1) is the record, and a new instance (after
 * eviction, another replica, or another version) reads it again. A version never changes once
 * published, so the index never goes stale, every replica of it answers the same, and a rollback
 * reaches the replicas of the version it restores.
 *
 * Replicas: a version has up to BROWSE_REPLICAS objects per region (a Durable Object location
 * hint chosen from the request's `cf`: browseRegion), so a shopper's miss crosses to an object in
 * its own region, and a region's misses spread over its replicas by a hash of the request.
 *
 * Per answer: no storage read; the build reads the version's index once (browse-source.ts).
 */
export class BrowseEngine extends DurableObject<Env> {
  readonly #service: BrowseService;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    this.#service = new BrowseService(new BrowseStore(env.BROWSE), env.BROWSE_SNAPSHOTS);
  }

  page(version: string, scope: Scope, query: BrowsePageQuery): Promise<BrowseReply> {
    return this.#service.page(version, scope, query);
  }

  facets(version: string, scope: Scope, filters: BrowseFilters): Promise<BrowseReply> {
    return this.#service.facets(version, scope, filters);
  }

  /** Where this object's index came from (snapshot or D1) and what it cost: null before the first answer. */
  built(): BrowseService["lastBuild"] {
    return this.#service.lastBuild;
  }
}

export {
  browseRegion,
  MAX_REPLICAS,
  type Placement,
  pickReplica,
  type Region,
  replicaCount,
  replicaName,
  type RequestPlace,
} from "./placement.ts";

/** The engine that answers `placement` for `version`: a replica of the version's index in the request's region. */
export function browseEngine(
  namespace: DurableObjectNamespace<BrowseEngine>,
  version: string,
  placement?: Placement,
): Browsing {
  const region = browseRegion(placement?.cf);
  const replica = placement ? pickReplica(placement.key, placement.replicas) : 0;
  const id = namespace.idFromName(replicaName(version, region, replica));
  return region ? namespace.get(id, { locationHint: region }) : namespace.get(id);
}
