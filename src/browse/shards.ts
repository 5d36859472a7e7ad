import type { BrowseFilters, BrowsePageQuery } from "./query.ts";
import type { BrowseReply, Browsing, Failure, ShardBrowsing, ShardOf } from "./replies.ts";
import { type FacetCounts, facetsAnswer, type PageSlice, pageBody } from "./slices.ts";
import type { Scope, TextStats } from "./index/version-index.ts";
import type { TextPlan } from "./index/text-index.ts";
import { mayWiden, SECOND_CHANCE_BELOW } from "./text.ts";

/**
 * A version's browse index in shards, for catalogs past what one engine holds (a Worker isolate
 * has 128 MB; the index takes ~0.7 KB a product, docs/operating.md, "Browse"). Shard i of n holds the
 * products at catalog positions [floor(i * size / n), floor((i + 1) * size / n)), numbered from 0
 * again, with what makes its answers comparable with the others': every facet value of the
 * catalog (value ids are the catalog's), the collections' whole headers and each member's rank
 * in its whole collection, and each search word's document frequency in the whole catalog (so a
 * product's relevance is the same in any shard). A shard's slice of a page is then its matches in
 * the catalog's own order, each with its position (slices.ts), and merging the shards' slices is
 * the page the whole index would give; facet counts add up.
 *
 * A shard is read out of the version's D1 index by itself (source.ts readBrowseData): the publish
 * writes each shard's snapshot from that read (publish/browse-index.ts), and an engine without
 * its shard's snapshot reads it the same way.
 */

/**
 * Products per shard unless a publish says otherwise: the index takes ~0.7 KB a product once
 * pages have inflated its items, so 100,000 products hold ~70 MiB of an isolate's 128 MB.
 */
export const DEFAULT_SHARD_PRODUCTS = 100_000;

/**
 * The most shards a version's browse index may be cut into: one browse request asks every shard
 * (a later page up to twice: 2n - 1 calls), besides the pointer read and the Cache API lookup and
 * store, and Workers allow 50 subrequests per request on the free plan (decision 0007,
 * "Limits"): 2 x 24 - 1 + 3 = 50. Past it, every browse request of the store would fail there.
 */
export const MAX_BROWSE_SHARDS = 24;

/** The catalog positions shard `shard` of `shards` holds: [from, to). */
export function shardRange(size: number, { shard, shards }: ShardOf): [from: number, to: number] {
  return [Math.floor((shard * size) / shards), Math.floor(((shard + 1) * size) / shards)];
}

/** How many shards a catalog of `products` takes at most `perShard` products a shard (1 without a limit). */
export function shardCount(products: number, perShard: number | undefined): number {
  return perShard === undefined || perShard <= 0 ? 1 : Math.max(1, Math.ceil(products / perShard));
}

/**
 * The whole catalog's TextPlan from every shard's TextStats: per kept word, the products having the
 * typed word (each shard's summed) and the most products any word it matched has in the catalog
 * (each matched word's products summed over the shards, then the largest); strict matches summed.
 */
export function planOf(parts: readonly TextStats[]): TextPlan {
  const first = parts[0] as TextStats;
  const words = first.kept.map((_, w) => {
    const own = parts.reduce((n, p) => n + (p.own[w] ?? 0), 0);
    const df = new Map<string, number>();
    for (const p of parts) for (const t of p.terms[w] ?? []) df.set(t.word, (df.get(t.word) ?? 0) + t.df);
    return { own, common: Math.max(0, ...df.values()) };
  });
  const strict = parts.reduce((n, p) => n + p.strict, 0);
  const widen = mayWiden(
    first.kept.map((word, i) => ({ word, exact: first.exact, known: (words[i]?.common ?? 0) > 0 })),
  );
  return { relax: widen && strict < SECOND_CHANCE_BELOW, words };
}

/**
 * Browse of a sharded version, in the Worker: asks every shard at once and merges (slices.ts).
 * A page after a cursor takes two rounds: the shard holding the cursor's product answers with
 * its slice and the cursor's position, and the others are asked again for their matches after
 * that position (the first round already tells every shard's failures apart: a cursor no shard
 * holds among its matches is the same 400 from each, as is an unknown collection's 404).
 */
export class ShardedBrowsing implements Browsing {
  readonly #shards: readonly ShardBrowsing[];
  readonly #parts: readonly ShardOf[] | undefined;

  /** `parts`: which part each engine is, when not shard i of a version's own index (a change batch's: overlay.ts). */
  constructor(shards: readonly ShardBrowsing[], parts?: readonly ShardOf[]) {
    this.#shards = shards;
    this.#parts = parts;
  }

  #of(shard: number): ShardOf {
    return this.#parts?.[shard] ?? { shard, shards: this.#shards.length };
  }

  /**
   * q's TextPlan, asked of every shard first (one more round for a q: a shard alone knows
   * neither the catalog's df of words it lacks nor the strict matches of the others), or the
   * failure a whole index would answer.
   */
  async #planned<F extends BrowseFilters>(version: string, scope: Scope, filters: F): Promise<F | Failure> {
    if (filters.words.length === 0) return filters;
    const replies = await Promise.all(this.#shards.map((s, i) => s.textStats(version, this.#of(i), scope, filters)));
    const parts: TextStats[] = [];
    for (const r of replies) {
      if (!r.ok) return r;
      parts.push(r.value);
    }
    return { ...filters, plan: planOf(parts) };
  }

  async page(version: string, scope: Scope, given: BrowsePageQuery): Promise<BrowseReply> {
    const query = await this.#planned(version, scope, given);
    if ("ok" in query) return query;
    const first = await Promise.all(this.#shards.map((s, i) => s.slice(version, this.#of(i), scope, query)));
    let replies = first;
    if (query.starting_after !== undefined || query.ending_before !== undefined) {
      const owner = first.findIndex((r) => r.ok);
      const held = first[owner];
      if (!held?.ok) return first[0] as Failure;
      const at = held.value.at ?? undefined;
      replies = await Promise.all(
        this.#shards.map((s, i) => (i === owner ? held : s.slice(version, this.#of(i), scope, query, at))),
      );
    }
    const slices: PageSlice[] = [];
    for (const r of replies) {
      if (!r.ok) return r;
      slices.push(r.value);
    }
    return { ok: true, body: pageBody(slices, scope.collection, query) };
  }

  async facets(version: string, scope: Scope, given: BrowseFilters): Promise<BrowseReply> {
    const filters = await this.#planned(version, scope, given);
    if ("ok" in filters) return filters;
    const replies = await Promise.all(this.#shards.map((s, i) => s.counts(version, this.#of(i), scope, filters)));
    const parts: FacetCounts[] = [];
    for (const r of replies) {
      if (!r.ok) return r;
      parts.push(r.value);
    }
    return { ok: true, body: facetsAnswer(parts, filters) };
  }
}
