import { DurableObject } from "cloudflare:workers";
import type { BrowseFilters, BrowsePageQuery } from "./query.ts";
import type { BrowseReply, Browsing, ShardBrowsing, ShardOf } from "./replies.ts";
import { BrowseService } from "./service.ts";
import { ShardedBrowsing } from "./shards.ts";
import type { VersionMeta } from "../catalog/layout.ts";
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

  /** A shard's slice of a page (shards.ts: the Worker merges every shard's). */
  slice(...args: Parameters<ShardBrowsing["slice"]>): ReturnType<ShardBrowsing["slice"]> {
    return this.#service.slice(...args);
  }

  /** A shard's facet counts (shards.ts: the Worker sums every shard's). */
  counts(...args: Parameters<ShardBrowsing["counts"]>): ReturnType<ShardBrowsing["counts"]> {
    return this.#service.counts(...args);
  }

  /** What a shard knows of a q's words and strict matches (shards.ts: the Worker sums every shard's into the q's plan). */
  textStats(...args: Parameters<ShardBrowsing["textStats"]>): ReturnType<ShardBrowsing["textStats"]> {
    return this.#service.textStats(...args);
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

/**
 * What answers `placement` for a version: a replica of the version's index in the request's
 * region, or for a sharded version (meta.browse_shards) that replica's shards, merged here. A
 * change batch's version (meta.browse_overlay) is answered by its root's replicas (loaded already,
 * named by the root), its frozen layers' (loaded already too) and its layer's, merged the same way.
 */
export function browseEngine(
  namespace: DurableObjectNamespace<BrowseEngine>,
  meta: Pick<VersionMeta, "version" | "browse_shards" | "browse_overlay">,
  placement?: Placement,
): Browsing {
  const region = browseRegion(placement?.cf);
  const replica = placement ? pickReplica(placement.key, placement.replicas) : 0;
  const engine = (index: string, shard?: number) => {
    const id = namespace.idFromName(replicaName(index, region, replica, shard));
    return region ? namespace.get(id, { locationHint: region }) : namespace.get(id);
  };
  const overlay = meta.browse_overlay;
  if (overlay) {
    const engines: ShardBrowsing[] = [];
    const parts: ShardOf[] = [];
    for (let i = 0; i < overlay.shards; i++) {
      engines.push(engine(overlay.root, overlay.shards > 1 ? i : undefined));
      parts.push({ shard: i, shards: overlay.shards, index: overlay.root });
    }
    for (const index of [...(overlay.frozen ?? []), ...(overlay.layer ? [overlay.layer] : [])]) {
      engines.push(engine(index));
      parts.push({ shard: 0, shards: 1, index });
    }
    return new ShardedBrowsing(engines, parts);
  }
  const shards = meta.browse_shards ?? 1;
  if (shards <= 1) return engine(meta.version);
  return new ShardedBrowsing(Array.from({ length: shards }, (_, i): ShardBrowsing => engine(meta.version, i)));
}
