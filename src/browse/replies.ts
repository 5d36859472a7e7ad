import type { CatalogFailureCode } from "../catalog/errors.ts";
import type { BrowseFilters, BrowsePageQuery } from "./query.ts";
import type { FacetCounts, PageSlice, Position } from "./slices.ts";
import type { Scope, TextStats } from "./index/version-index.ts";

/**
 * What browse answers across RPC, in one file below everything that sends or receives it: the
 * engine and its service (service.ts) answer these, the Worker's merge of shards (shards.ts) asks
 * for them. Neither of those two imports the other.
 */

/** A failure crosses RPC as data: a thrown error would lose its class and its parameter. */
export type Failure = { ok: false; code: CatalogFailureCode; message: string; param?: string };
export type BrowseReply = { ok: true; body: string } | Failure;

/** What answers browse for the Worker: the engine of a version (production) or any stand-in with the same methods. */
export interface Browsing {
  page(version: string, scope: Scope, query: BrowsePageQuery): Promise<BrowseReply>;
  facets(version: string, scope: Scope, filters: BrowseFilters): Promise<BrowseReply>;
}

/**
 * Which shard of how many. `index`: the version whose index this part is, when it is not the
 * version answered (a change batch's catalog is answered by its root's shards and by its layer:
 * browse/overlay.ts); then the shard and count are that index's.
 */
export interface ShardOf {
  shard: number;
  shards: number;
  index?: string;
}

/** A shard's answer across RPC: its value, or the failure a whole index would have answered. */
export type ShardReply<T> = { ok: true; value: T } | Failure;

/** What answers for one shard (the BrowseEngine's shard methods, or a BrowseService in tests). */
export interface ShardBrowsing {
  slice(
    version: string,
    of: ShardOf,
    scope: Scope,
    query: BrowsePageQuery,
    after?: Position,
  ): Promise<ShardReply<PageSlice>>;
  counts(version: string, of: ShardOf, scope: Scope, filters: BrowseFilters): Promise<ShardReply<FacetCounts>>;
  /** What the shard knows of q (TextStats), asked before a q's page or facets. */
  textStats(version: string, of: ShardOf, scope: Scope, filters: BrowseFilters): Promise<ShardReply<TextStats>>;
}
