import type { BrowseFilters, BrowsePageQuery } from "./query.ts";
import type { BrowseReply, Browsing, Failure } from "./service.ts";
import { type FacetCounts, facetsAnswer, type PageSlice, pageBody, type Position } from "./slices.ts";
import type { WordPostings } from "./index/text-index.ts";
import type { BrowseData, CollectionData, Scope } from "./index/version-index.ts";

/**
 * A version's browse index in shards, for catalogs past what one engine holds (a Worker isolate
 * has 128 MB; the index takes ~0.7 KB a product, README "Browse"). Shard i of n holds the
 * products at catalog positions [floor(i * size / n), floor((i + 1) * size / n)), numbered from 0
 * again, with what makes its answers comparable with the others': every facet value of the
 * catalog (value ids are the catalog's), the collections' whole headers and each member's rank
 * in its whole collection, and each search word's document frequency in the whole catalog (so a
 * product's relevance is the same in any shard). A shard's slice of a page is then its matches in
 * the catalog's own order, each with its position (slices.ts), and merging the shards' slices is
 * the page the whole index would give; facet counts add up.
 *
 * Publish cuts the shards (publish/browse-index.ts: one snapshot each); an engine without its
 * shard's snapshot cuts it from the version's D1 index (source.ts).
 */

/**
 * Products per shard unless a publish says otherwise: the index takes ~0.7 KB a product once
 * pages have inflated its items, so 100,000 products hold ~70 MiB of an isolate's 128 MB.
 */
export const DEFAULT_SHARD_PRODUCTS = 100_000;

/** Which shard of how many. */
export interface ShardOf {
  shard: number;
  shards: number;
}

/** The catalog positions shard `shard` of `shards` holds: [from, to). */
export function shardRange(size: number, { shard, shards }: ShardOf): [from: number, to: number] {
  return [Math.floor((shard * size) / shards), Math.floor(((shard + 1) * size) / shards)];
}

/** How many shards a catalog of `products` takes at most `perShard` products a shard (1 without a limit). */
export function shardCount(products: number, perShard: number | undefined): number {
  return perShard === undefined || perShard <= 0 ? 1 : Math.max(1, Math.ceil(products / perShard));
}

/** The places of ascending `ids` from the first not below `from` to the first not below `to`. */
function bounds(ids: Uint32Array, from: number, to: number, lo = 0, hi = ids.length): [number, number] {
  const search = (value: number, l: number, h: number) => {
    while (l < h) {
      const mid = (l + h) >>> 1;
      if ((ids[mid] as number) < value) l = mid + 1;
      else h = mid;
    }
    return l;
  };
  const a = search(from, lo, hi);
  return [a, search(to, a, hi)];
}

/** `ids[a .. b]` less `offset`: positions as the shard numbers them. */
function rebased(ids: Uint32Array, a: number, b: number, offset: number): Uint32Array {
  const out = ids.slice(a, b);
  for (let i = 0; i < out.length; i++) out[i] = (out[i] as number) - offset;
  return out;
}

function cutWords(words: WordPostings, from: number, to: number, size: number): WordPostings {
  const kept: number[] = [];
  const ranges: [number, number][] = [];
  for (let w = 0; w < words.words.length; w++) {
    const range = bounds(words.ids, from, to, words.starts[w], words.starts[w + 1]);
    if (range[1] > range[0]) {
      kept.push(w);
      ranges.push(range);
    }
  }
  const starts = new Uint32Array(kept.length + 1);
  ranges.forEach(([a, b], i) => {
    starts[i + 1] = (starts[i] as number) + b - a;
  });
  const ids = new Uint32Array(starts[kept.length] as number);
  const weights = new Uint8Array(ids.length);
  ranges.forEach(([a, b], i) => {
    ids.set(rebased(words.ids, a, b, from), starts[i]);
    weights.set(words.weights.subarray(a, b), starts[i]);
  });
  return {
    words: kept.map((w) => words.words[w] as string),
    starts,
    ids,
    weights,
    stop: words.stop,
    df: Uint32Array.from(kept, (w) => words.df?.[w] ?? (words.starts[w + 1] as number) - (words.starts[w] as number)),
    catalog: words.catalog ?? size,
  };
}

function cutCollection(c: CollectionData, from: number, to: number): CollectionData {
  const members: number[] = [];
  const ranks: number[] = [];
  c.members.forEach((id, rank) => {
    if (id >= from && id < to) {
      members.push(id - from);
      ranks.push(rank);
    }
  });
  return { title: c.title, n: c.n, members: Uint32Array.from(members), ranks: Uint32Array.from(ranks) };
}

/**
 * Shard `of` of a version's whole index, as read from D1 (plain items and handles, nothing
 * derived yet: the engine or the snapshot derives a shard's own parts).
 */
export function cutShard(data: BrowseData, of: ShardOf): BrowseData {
  if (data.shard || data.built || !Array.isArray(data.handles) || "blocks" in data.items)
    throw new Error("a shard is cut from a version's whole index as D1 gives it");
  const [from, to] = shardRange(data.size, of);
  const { text, starts } = data.items;
  let products = 0;
  for (const price of data.prices) if (!Number.isNaN(price)) products++;
  return {
    size: to - from,
    values: data.values,
    postings: data.postings.map((ids) => rebased(ids, ...bounds(ids, from, to), from)),
    options: data.options,
    prices: data.prices.slice(from, to),
    created: data.created.slice(from, to),
    titles: data.titles.slice(from, to),
    handles: data.handles.slice(from, to),
    items: {
      text: text.subarray(starts[from * 2], starts[to * 2]),
      starts: Uint32Array.from(starts.subarray(from * 2, to * 2 + 1), (at) => at - (starts[from * 2] as number)),
    },
    collections: new Map([...data.collections].map(([handle, c]) => [handle, cutCollection(c, from, to)])),
    words: cutWords(data.words, from, to, data.size),
    shard: { offset: from, products },
  };
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

  constructor(shards: readonly ShardBrowsing[]) {
    this.#shards = shards;
  }

  #of(shard: number): ShardOf {
    return { shard, shards: this.#shards.length };
  }

  async page(version: string, scope: Scope, query: BrowsePageQuery): Promise<BrowseReply> {
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

  async facets(version: string, scope: Scope, filters: BrowseFilters): Promise<BrowseReply> {
    const replies = await Promise.all(this.#shards.map((s, i) => s.counts(version, this.#of(i), scope, filters)));
    const parts: FacetCounts[] = [];
    for (const r of replies) {
      if (!r.ok) return r;
      parts.push(r.value);
    }
    return { ok: true, body: facetsAnswer(parts, filters) };
  }
}
