import type { ShardOf } from "../../src/browse/replies.ts";
import { shardRange } from "../../src/browse/shards.ts";
import type { WordPostings } from "../../src/browse/index/text-index.ts";
import type { BrowseData, CollectionData } from "../../src/browse/index/version-index.ts";

/**
 * What a shard is, cut from a version's whole index in memory (the model the shard reads of
 * src/browse/source.ts are compared with): the products at its range of catalog positions,
 * numbered from 0 again, every facet value, each collection's header and each member's rank in
 * the whole collection, the catalog's n and sums of lengths for scoring.
 */

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

function cutWords(words: WordPostings, from: number, to: number): WordPostings {
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
  const weights = words.packed ? new Uint32Array(ids.length) : new Uint16Array(ids.length);
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
    ...(words.packed ? { packed: true } : {}),
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
    titleKeys: (data.titleKeys as string[]).slice(from, to),
    handles: data.handles.slice(from, to),
    items: {
      text: text.subarray(starts[from * 2], starts[to * 2]),
      starts: Uint32Array.from(starts.subarray(from * 2, to * 2 + 1), (at) => at - (starts[from * 2] as number)),
    },
    collections: new Map([...data.collections].map(([handle, c]) => [handle, cutCollection(c, from, to)])),
    words: cutWords(data.words, from, to),
    scoring: {
      ...data.scoring,
      ...(data.scoring.lengths
        ? {
            lengths: {
              title: data.scoring.lengths.title.slice(from, to),
              description: data.scoring.lengths.description.slice(from, to),
            },
          }
        : {}),
    },
    shard: { offset: from, products },
  };
}
