import { and, bitmap, has, members, orInto, popcount, scan, setAll, where } from "./bitmap.ts";
import { optionFacet } from "../layout.ts";
import { type BrowseFilters, type BrowsePageQuery, hasFilters } from "../query.ts";
import type { Sort } from "../parameters.ts";
import { invalidParameter, notFound, unknownParameter } from "../../catalog/errors.ts";
import { type ColumnArrays, FacetIndex, type FacetValueRow, type Group, type ProductSet } from "./facet-index.ts";
import { collectionBody, collectionMember, listBody } from "../../catalog/render.ts";
import { type Term, TextIndex, type WordPostings } from "./text-index.ts";
import { type Items, ItemTexts, type PackedItems, type PackedStrings, stringAt } from "./items.ts";

export type { Items, PackedItems, PackedStrings } from "./items.ts";

/**
 * Everything browse answers for one catalog version, in memory: filters and q as bitmaps,
 * facet counts (FacetIndex), and pages under every sort, walked from precomputed orders, with
 * the items' JSON at hand, so an answer reads no storage at all. Built once per version from
 * its browse index (browse-source.ts) and held by that version's BrowseEngine Durable Object.
 *
 * Product ids are catalog positions (0 .. size - 1); an id no product has (none in a published
 * catalog, but the index does not promise it) has a NaN price and is in no set.
 */

/** A collection: its header, and its products in its own order. */
export interface CollectionData {
  title: string;
  /** The product count its header shows. */
  n: number;
  members: Uint32Array;
}

/** What a version's index is built from (browse-source.ts reads it out of D1). */
export interface BrowseData {
  size: number;
  /** By value id; ids of one facet are one range. */
  values: FacetValueRow[];
  /** By value id: the products having it, ascending. */
  postings: Uint32Array[];
  /** Option API names in order of first appearance. */
  options: string[];
  /** By product: lowest price in minor units (NaN: no product), created_at in ms, title sort rank (equal titles share one). */
  prices: Float64Array;
  created: Float64Array;
  titles: Uint32Array;
  /** By product: handle (from a snapshot packed as UTF-8); list item and featured image JSON (from a snapshot deflated by block: items.ts). */
  handles: string[] | PackedStrings;
  items: Items | PackedItems;
  collections: Map<string, CollectionData>;
  words: WordPostings;
  /** What the constructor derives, when a snapshot carries it (VersionIndex.built): then it is taken, not computed. */
  built?: BuiltParts;
}

/**
 * The parts VersionIndex derives from BrowseData that cost time to make (sorts, per-product
 * facet columns, collection rank tables: at 20k products ~0.5 s of a loaded machine's 0.7 s
 * build), written into the snapshot at publish so a new engine only makes views of them.
 */
export interface BuiltParts {
  /** Each sort's ids in (key, id) order. */
  orders: { price: Uint32Array; title: Uint32Array; created: Uint32Array };
  /** FacetIndex's columns by facet, and the every-facet column. */
  columns: Map<string, ColumnArrays>;
  every: ColumnArrays;
  /** Each collection's rank table by handle. */
  ranks: Map<string, RankTable>;
}

/** Where a browse reads: the whole catalog, or one collection's products in its order. */
export type Scope = { collection?: undefined } | { collection: string };

/** A keyed page sorts its matches instead of walking the order when they are under 1/SPARSE of the products. */
const SPARSE = 64;

/** Products per dense value bitmap: a value on more than 1/DENSE of the products keeps one. */
const DENSE = 32;

/** Ids sorted by (key, id), ascending; ids no product has left out. */
function order(key: ArrayLike<number>, present: Uint32Array): Uint32Array {
  return present.slice().sort((a, b) => (key[a] as number) - (key[b] as number) || a - b);
}

/** position[id] = where id is in `ids`. */
function positions(ids: Uint32Array, size: number): Uint32Array {
  const out = new Uint32Array(size);
  for (let i = 0; i < ids.length; i++) out[ids[i] as number] = i;
  return out;
}

/** A sort on a key: the ids in (key, id) order, each id's place in it, and the key. */
interface KeyOrder {
  ids: Uint32Array;
  at: Uint32Array;
  key: ArrayLike<number>;
}

/** What a query resolves to, for a page or for facets. */
interface Resolved {
  base: ProductSet;
  collection: CollectionData | null;
  groups: Group[];
  /**
   * For a page whose q matched few products (under 1/SPARSE, as a list): those, ascending, not
   * yet narrowed to the base and groups; the page then works on them, not on bitmaps.
   */
  few: Uint32Array | null;
  /** Per word of q, the index words it matched (for relevance). */
  terms: Term[][];
}

export class VersionIndex {
  readonly size: number;
  readonly #data: BrowseData;
  readonly #catalog: Uint32Array;
  readonly #products: number;
  readonly #facets: FacetIndex;
  readonly #text: TextIndex;
  readonly #ids = new Map<string, number>();
  /** Handle -> id, made on the first cursor (a cold engine's first answer rarely has one). */
  #handles: Map<string, number> | null = null;
  readonly #options: Set<string>;
  readonly #dense = new Map<number, Uint32Array>();
  readonly #orders: Record<"price" | "title" | "created", KeyOrder>;
  readonly #available: Uint32Array;
  readonly #rankTables = new Map<CollectionData, RankTable>();
  /** A page's matches, reused by every page (made once: a large typed array costs more to make than to fill). */
  readonly #matches: Uint32Array;
  readonly #items: ItemTexts;

  constructor(data: BrowseData) {
    this.size = data.size;
    this.#data = data;
    this.#items = new ItemTexts(data.items);
    this.#catalog = where(data.size, (p) => !Number.isNaN(data.prices[p]));
    const present = members(this.#catalog);
    this.#products = present.length;
    this.#options = new Set(data.options);
    data.values.forEach((v, id) => {
      this.#ids.set(`${v.f}\u0000${v.k}`, id);
      const ids = data.postings[id] as Uint32Array;
      if (ids.length * DENSE > data.size) {
        const bits = bitmap(data.size);
        setAll(bits, ids);
        this.#dense.set(id, bits);
      }
    });
    this.#available = this.#anyOf("available", ["true"]).bits;
    this.#matches = bitmap(data.size);
    this.#text = new TextIndex(data.size, data.words);
    const built = data.built;
    const byKey = (key: ArrayLike<number>, ids: Uint32Array = order(key, present)): KeyOrder => ({
      ids,
      at: positions(ids, data.size),
      key,
    });
    this.#orders = {
      price: byKey(data.prices, built?.orders.price),
      title: byKey(data.titles, built?.orders.title),
      created: byKey(data.created, built?.orders.created),
    };
    const columns = built ? { columns: built.columns, every: built.every } : undefined;
    this.#facets = new FacetIndex(
      data.size,
      data.values,
      data.postings,
      data.prices,
      this.#orders.price.ids,
      data.options,
      this.#catalog,
      columns,
    );
    for (const [handle, c] of data.collections)
      this.#rankTables.set(c, built?.ranks.get(handle) ?? rankTable(c.members));
  }

  /** The derived parts a snapshot carries (BuiltParts), as this index holds them. */
  get built(): BuiltParts {
    const ranks = new Map<string, RankTable>();
    for (const [handle, c] of this.#data.collections) ranks.set(handle, this.#rankTables.get(c) as RankTable);
    return {
      orders: { price: this.#orders.price.ids, title: this.#orders.title.ids, created: this.#orders.created.ids },
      ...this.#facets.columnArrays(),
      ranks,
    };
  }

  #idOf(handle: string): number | undefined {
    if (!this.#handles) {
      this.#handles = new Map();
      for (const id of members(this.#catalog)) this.#handles.set(stringAt(this.#data.handles, id), id);
    }
    return this.#handles.get(handle);
  }

  /** Bytes held in typed arrays (items included, as held: deflated blocks and those inflated so far; handles, words and value names aside). */
  get bytes(): number {
    const d = this.#data;
    let n =
      this.#catalog.byteLength +
      this.#available.byteLength +
      d.prices.byteLength +
      d.created.byteLength +
      d.titles.byteLength;
    for (const ids of d.postings) n += ids.byteLength;
    for (const c of d.collections.values()) n += c.members.byteLength;
    for (const t of this.#rankTables.values()) n += t.ids.byteLength + t.ranks.byteLength;
    for (const bits of this.#dense.values()) n += bits.byteLength;
    for (const o of Object.values(this.#orders)) n += o.ids.byteLength + o.at.byteLength;
    n += this.#items.bytes + this.#matches.byteLength;
    return n + this.#facets.bytes + this.#text.bytes;
  }

  /**
   * The filter admitting the products having any of `keys` of `facet` (a key no product has
   * admits nothing). One value on more than 1/DENSE of the products is its bitmap, kept by name.
   */
  #anyOf(facet: string, keys: readonly string[]): Group {
    const one = keys.length === 1 ? this.#ids.get(`${facet}\u0000${keys[0]}`) : undefined;
    const dense = one === undefined ? undefined : this.#dense.get(one);
    if (dense) return { facet, bits: dense, keep: `v${one}` };
    const bits = bitmap(this.size);
    for (const key of keys) {
      const id = this.#ids.get(`${facet}\u0000${key}`);
      if (id === undefined) continue;
      const dense = this.#dense.get(id);
      if (dense) orInto(bits, dense);
      else setAll(bits, this.#data.postings[id] as Uint32Array);
    }
    return { facet, bits };
  }

  /**
   * The scope's products and every active filter as a bitmap (q's few matches as a list when
   * `few` allows). Throws 404 / 400 as a page or facets answer would.
   */
  #resolve(scope: Scope, filters: BrowseFilters, few = false): Resolved {
    let base: ProductSet = { bits: this.#catalog };
    let collection: CollectionData | null = null;
    if (scope.collection !== undefined) {
      collection = this.#data.collections.get(scope.collection) ?? null;
      if (!collection) throw notFound(`No collection has the handle "${scope.collection}".`, "handle");
      const bits = bitmap(this.size);
      setAll(bits, collection.members);
      and(bits, bits, this.#catalog);
      base = collection.members.length * DENSE > this.size ? { bits, keep: `c${scope.collection}` } : { bits };
    }
    const missing = filters.options.find(([name]) => !this.#options.has(name));
    if (missing)
      throw unknownParameter(
        `Unknown query parameter: option.${missing[0]} (no product of the catalog has an option ` +
          `named "${missing[0]}").`,
        `option.${missing[0]}`,
      );
    const groups: Group[] = [];
    let terms: Term[][] = [];
    let list: Uint32Array | null = null;
    if (filters.words.length > 0) {
      const text = this.#text.search(filters.words);
      if (few && text.list && text.list.length * SPARSE < this.size) list = text.list;
      else groups.push({ facet: null, bits: this.#text.bits(text) });
      terms = text.terms;
    }
    if (filters.vendor) groups.push(this.#anyOf("vendor", filters.vendor));
    if (filters.product_type) groups.push(this.#anyOf("product_type", filters.product_type));
    if (filters.tag) groups.push(this.#anyOf("tag", filters.tag));
    if (filters.available !== undefined) groups.push(this.#anyOf("available", [String(filters.available)]));
    for (const [name, keys] of filters.options) groups.push(this.#anyOf(optionFacet(name), keys));
    if (filters.price_min !== undefined || filters.price_max !== undefined) {
      const lo = filters.price_min ?? -Infinity;
      const hi = filters.price_max ?? Infinity;
      const prices = this.#data.prices;
      groups.push({
        facet: "price",
        bits: where(this.size, (p) => (prices[p] as number) >= lo && (prices[p] as number) <= hi),
      });
    }
    return { base, collection, groups, terms, few: list };
  }

  /** The facets answer of `filters` over `scope`. */
  facets(scope: Scope, filters: BrowseFilters): string {
    const r = this.#resolve(scope, filters);
    return this.#facets.count(r.base, r.groups, filters);
  }

  /**
   * A page of matches as the list envelope (`GET /products` with browse parameters), or a
   * collection's products wrapped in the collection. Throws 400 for a cursor not among the matches.
   * Async only while the page's item blocks are still deflated (ItemTexts.ready).
   */
  async page(scope: Scope, q: BrowsePageQuery): Promise<string> {
    const r = this.#resolve(scope, q, true);
    // Few matches of q stay a list, narrowed product by product: no bitmap walked whole.
    const few = r.few?.filter((id) => has(r.base.bits, id) && r.groups.every((g) => has(g.bits, id))) ?? null;
    let matches = r.base.bits;
    // The chain ANDs into #matches (the base and the groups may be kept sets: never written).
    if (!few)
      for (const [i, g] of r.groups.entries()) matches = and(i === 0 ? this.#matches : matches, matches, g.bits);
    const cursorHandle = q.starting_after ?? q.ending_before;
    const backwards = q.ending_before !== undefined;
    let cursor: number | undefined;
    if (cursorHandle !== undefined) {
      cursor = this.#idOf(cursorHandle);
      const found = cursor !== undefined && (few ? few[lowerBound(few, cursor)] === cursor : has(matches, cursor));
      if (!found) {
        throw invalidParameter(
          `No product with handle "${cursorHandle}" among the matches of this query.`,
          backwards ? "ending_before" : "starting_after",
        );
      }
    }
    const take = q.limit + 1;
    const ranks = new Ranks(r.collection, r.collection ? (this.#rankTables.get(r.collection) ?? null) : null);
    const count = few ? few.length : popcount(matches);
    const ids = this.#walk(q.sort, few ?? matches, few !== null, count, r.terms, ranks, cursor, backwards, take);
    const hasMore = ids.length > q.limit;
    const page = ids.slice(0, q.limit);
    if (backwards) page.reverse();
    const ready = this.#items.ready(page);
    if (ready) await ready;
    const total = hasFilters(q) ? count : (r.collection?.n ?? this.#products);
    const list = listBody(
      total,
      page.map((id) => this.#itemLine(id, r.collection !== null, q.image)),
      hasMore,
    );
    if (scope.collection === undefined || !r.collection) return list;
    return collectionBody(scope.collection, r.collection.title, r.collection.n, list);
  }

  #itemLine(id: number, inCollection: boolean, image: boolean): string {
    const json = (k: number) => this.#items.json(k);
    let line = json(id * 2).slice(0, -1);
    if (inCollection) {
      const member = collectionMember(stringAt(this.#data.handles, id), has(this.#available, id));
      line += `,${JSON.stringify(member).slice(1, -1)}`;
    }
    if (image) line += `,"image":${json(id * 2 + 1)}`;
    return `${line}}`;
  }

  /**
   * The first `take` matches in the sort's order (reversed when paging backwards) after the
   * cursor. Every order is a run of segments of equal key (one segment for catalog order, one
   * per relevance level, one per tie of a keyed sort), each in scope order (rank) so ties fall
   * back to catalog or collection order. Few matches (under 1/SPARSE of the products, or given
   * as a list: `listed`, ascending ids) are sorted instead of walked.
   */
  #walk(
    sort: Sort,
    matches: Uint32Array,
    listed: boolean,
    count: number,
    terms: readonly Term[][],
    ranks: Ranks,
    cursor: number | undefined,
    backwards: boolean,
    take: number,
  ): number[] {
    const out: number[] = [];
    const matched = () => (listed ? matches : members(matches));
    if (sort === "catalog" && !listed) {
      ranks.scan(matches, cursor, backwards, take, out);
      return out;
    }
    if (sort === "relevance") {
      // Fewest typos first, then the highest score (text-index.ts), then scope order: the
      // first `take` after the cursor in that order (before it, nearest first, backwards).
      const ids = matched();
      const key = this.#text.relevance(ids, terms);
      const rank = ranks.rankOf();
      const at = cursor === undefined ? -1 : lowerBound(ids, cursor);
      const picked = firstInOrder(
        key,
        backwards ? -1 : 1,
        (i, j) => rank(ids[i] as number) - rank(ids[j] as number),
        take,
        at,
      );
      for (const i of picked) out.push(ids[i] as number);
      return out;
    }
    const keyed = sort === "catalog" ? null : KEYED[sort];
    const o = keyed ? this.#orders[keyed.key] : null;
    if (!keyed || !o || listed || count * SPARSE < o.ids.length) {
      // Few matches: sorting them costs less than walking the order past every other product.
      const rank = ranks.rankOf();
      const dir = keyed?.desc ? -1 : 1;
      const key = o?.key;
      const list = Array.from(matched()).sort(
        key
          ? (a, b) => dir * ((key[a] as number) - (key[b] as number)) || rank(a) - rank(b)
          : (a, b) => rank(a) - rank(b),
      );
      if (backwards) list.reverse();
      const from = cursor === undefined ? 0 : list.indexOf(cursor) + 1;
      return list.slice(from, from + take);
    }
    // Walking the (key, id) order forwards or backwards, a segment at a time.
    const key = o.key;
    const forward = keyed.desc === backwards;
    const ids = o.ids;
    let at = cursor === undefined ? (forward ? 0 : ids.length - 1) : (o.at[cursor] as number);
    const step = forward ? 1 : -1;
    const segment: number[] = [];
    let first = true;
    while (out.length < take && at >= 0 && at < ids.length) {
      const k = key[ids[at] as number] as number;
      // The whole segment of key k: from where it starts in this direction.
      let start = at;
      if (first && cursor !== undefined)
        while (start - step >= 0 && start - step < ids.length && key[ids[start - step] as number] === k) start -= step;
      let end = start;
      segment.length = 0;
      while (end >= 0 && end < ids.length && key[ids[end] as number] === k) {
        const id = ids[end] as number;
        if (has(matches, id)) segment.push(id);
        end += step;
      }
      ranks.order(segment, backwards);
      let from = 0;
      if (first && cursor !== undefined) from = segment.indexOf(cursor) + 1;
      for (let i = from; i < segment.length && out.length < take; i++) out.push(segment[i] as number);
      first = false;
      at = end;
    }
    return out;
  }
}

const KEYED: Record<Exclude<Sort, "catalog" | "relevance">, { key: "price" | "title" | "created"; desc: boolean }> = {
  price_asc: { key: "price", desc: false },
  price_desc: { key: "price", desc: true },
  title_asc: { key: "title", desc: false },
  title_desc: { key: "title", desc: true },
  newest: { key: "created", desc: true },
};

/** The first index of ascending `ids` not below `id`. */
function lowerBound(ids: Uint32Array, id: number): number {
  let lo = 0;
  let hi = ids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((ids[mid] as number) < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The first `take` places of `key` in (key, then `tie`) order, reversed when `dir` is -1, after
 * place `after` in that order (from the start when -1), kept sorted as they come (binary
 * insertion); a place that cannot enter is turned away on its key alone.
 */
function firstInOrder(
  key: Float64Array,
  dir: 1 | -1,
  tie: (i: number, j: number) => number,
  take: number,
  after: number,
): number[] {
  const compare = (i: number, j: number) => dir * ((key[i] as number) - (key[j] as number) || tie(i, j));
  const n = key.length;
  const kept: number[] = [];
  for (let i = 0; i < n; i++) {
    if (kept.length === take) {
      const last = kept[take - 1] as number;
      const d = dir * ((key[i] as number) - (key[last] as number));
      if (d > 0 || (d === 0 && dir * tie(i, last) >= 0)) continue;
    }
    if (after >= 0 && compare(i, after) <= 0) continue;
    let lo = 0;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(kept[mid] as number, i) <= 0) lo = mid + 1;
      else hi = mid;
    }
    kept.splice(lo, 0, i);
    if (kept.length > take) kept.pop();
  }
  return kept;
}

/** A collection's ranks by product: its members sorted by id, each with its rank. */
export interface RankTable {
  ids: Uint32Array;
  ranks: Uint32Array;
}

function rankTable(members: Uint32Array): RankTable {
  const order = Uint32Array.from(members.keys()).sort((a, b) => (members[a] as number) - (members[b] as number));
  return { ids: Uint32Array.from(order, (i) => members[i] as number), ranks: order };
}

/**
 * Scope order: catalog order (ids ascending) or a collection's. Scans a set in that order, and
 * orders a segment by it.
 */
class Ranks {
  readonly #collection: CollectionData | null;
  readonly #table: RankTable | null;

  constructor(collection: CollectionData | null, table: RankTable | null) {
    this.#collection = collection;
    this.#table = table;
  }

  /** Up to `take` ids of `bits` in scope order after `cursor` (from the start without one). */
  scan(bits: Uint32Array, cursor: number | undefined, backwards: boolean, take: number, out: number[]): void {
    const c = this.#collection;
    if (!c) {
      const from = cursor === undefined ? (backwards ? bits.length * 32 - 1 : 0) : cursor + (backwards ? -1 : 1);
      scan(bits, from, backwards, take, out);
      return;
    }
    const list = c.members;
    const step = backwards ? -1 : 1;
    let i = cursor === undefined ? (backwards ? list.length - 1 : 0) : this.rankOf()(cursor) + step;
    for (; i >= 0 && i < list.length && out.length < take; i += step) {
      const id = list[i] as number;
      if (has(bits, id)) out.push(id);
    }
  }

  /** Each id's place in scope order: its id in the catalog, its rank in a collection (binary search). */
  rankOf(): (id: number) => number {
    const t = this.#table;
    if (!t) return (id) => id;
    return (id) => {
      let lo = 0;
      let hi = t.ids.length - 1;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((t.ids[mid] as number) < id) lo = mid + 1;
        else hi = mid;
      }
      return t.ranks[lo] as number;
    };
  }

  /** Sorts `ids` into scope order (reversed when backwards). */
  order(ids: number[], backwards: boolean): void {
    if (ids.length < 2) return;
    const rank = this.rankOf();
    ids.sort(backwards ? (a, b) => rank(b) - rank(a) : (a, b) => rank(a) - rank(b));
  }
}
