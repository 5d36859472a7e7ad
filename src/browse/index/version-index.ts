import { and, andNot, bitCount, bitmap, has, members, orInto, popcount, scan, setAll, where } from "./bitmap.ts";
import { firstNotBelow, lowerBound } from "./bound.ts";
import { optionFacet } from "../layout.ts";
import { type BrowseFilters, type BrowsePageQuery, isPlainList } from "../query.ts";
import type { Sort } from "../parameters.ts";
import { invalidParameter, notFound, unknownParameter } from "../../catalog/errors.ts";
import {
  type ColumnArrays,
  FacetIndex,
  type FacetValueRow,
  type Group,
  type ProductSet,
  type StockChange,
} from "./facet-index.ts";
import type { LiveStock } from "../live-stock.ts";
import { valueKey } from "../text.ts";
import { collectionMember } from "../../catalog/render.ts";
import { type FacetCounts, facetsAnswer, type PageSlice, pageBody, type Position } from "../slices.ts";
import { type Scoring, type TextMatches, TextIndex, type WordPostings } from "./text-index.ts";
import { compareCodePoints } from "../text.ts";
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
  /** In a shard (shards.ts), by member: its place in the whole collection (absent: its place in `members`). */
  ranks?: Uint32Array;
}

/** Where a shard's products sit in the catalog (shards.ts cuts a version's index into shards). */
export interface ShardPlace {
  /** The catalog position of the shard's product 0: its ids are positions minus this. */
  offset: number;
  /** The catalog's products (what a list without filters counts). */
  products: number;
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
  /**
   * By product: its title folded (text.ts foldText), what title ranks order. Positions in a title
   * sort carry it, so indexes whose ranks were counted apart (a change batch's and its catalog's)
   * still merge in one order (slices.ts).
   */
  titleKeys: string[] | PackedStrings;
  /** By product: handle (from a snapshot packed as UTF-8); list item and featured image JSON (from a snapshot deflated by block: items.ts). */
  handles: string[] | PackedStrings;
  items: Items | PackedItems;
  collections: Map<string, CollectionData>;
  words: WordPostings;
  /** The catalog's n and lengths relevance scores with (text-index.ts Scoring). */
  scoring: Scoring;
  /** What the constructor derives, when a snapshot carries it (VersionIndex.built): then it is taken, not computed. */
  built?: BuiltParts;
  /** Set when this is one shard of a version's index. */
  shard?: ShardPlace;
  /**
   * A change batch's index of the products it and the batches before it changed (issue 45): by
   * product, its place in the catalog (ascending, with gaps), which is its rank in catalog order.
   */
  slots?: Uint32Array;
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

/** A sort on a key: the ids in (key, id) order, and the key. */
interface KeyOrder {
  ids: Uint32Array;
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
  /** What q matched (for relevance), null without q. */
  text: TextMatches | null;
  /** The second chance's matches (all of q's words but one), when q took it: ranked below the strict ones. */
  partial: Uint32Array | null;
  /** Live stock's delta on the file, when the request carries one. */
  live: Live | null;
}

/**
 * Live stock applied to a version's index (LiveStock, one overlay generation): the `available`
 * and option values whose products live stock changed, as bitmaps patched from the file's (each
 * used instead of the file's, and never kept: ProductSet.keep), the changes themselves (what the
 * facet counts move: StockChange), and the available products (a collection member's `available`).
 * Made once per generation from the few changed products: a delta, never a rebuild.
 */
interface Live {
  gen: number;
  bits: Map<number, Uint32Array>;
  changes: StockChange[];
  available: Uint32Array;
}

/** What one index tells a sharded version's Worker of a q before it answers (shards.ts: summed over the shards into a TextPlan). */
export interface TextStats {
  /** Strict matches of q in the scope. */
  strict: number;
  /** Per kept word: this index's products having the typed word, and each index word it matched with its products here. */
  own: number[];
  terms: { word: string; df: number }[][];
  /** q's kept words, and whether one is exact (text.ts mayWiden reads them with the words' stats). */
  kept: string[];
  exact: boolean;
}

/**
 * What change batches make of an index when it answers for their catalog (issue 45): the index
 * stays as published, and this says what differs, so answering needs no rebuild. Made per
 * answering version from what the batch wrote (browse/overlay.ts).
 */
export interface IndexView {
  /** This index's products deleted or replaced since it was built, ascending. */
  removed: Uint32Array;
  /** The catalog's products (a list's count without filters). */
  products: number;
  /** The catalog's n and sums of title and description lengths. */
  scoring: Scoring;
  /** The catalog's option names, in order of first appearance. */
  options: string[];
  /** `<facet>\u0000<key>` -> the value as the catalog now spells it first, where that changed. */
  displays: ReadonlyMap<string, string>;
  /** Collections whose header or members changed, in this index's ids (null: deleted). */
  collections: ReadonlyMap<string, CollectionData | null>;
}

export class VersionIndex {
  readonly size: number;
  readonly #data: BrowseData;
  readonly #catalog: Uint32Array;
  /** The catalog's products (a shard's catalog's, not its own), and where the shard's ids start. */
  readonly #products: number;
  readonly #offset: number;
  /** A change batch's index: each product's rank in catalog order (BrowseData.slots). */
  readonly #slots: Uint32Array | null;
  readonly #collections: Map<string, CollectionData>;
  readonly #facets: FacetIndex;
  readonly #text: TextIndex;
  readonly #ids: Map<string, number> = new Map();
  /** Handle -> id, made on the first cursor (a cold engine's first answer rarely has one). */
  #handles: Map<string, number> | null = null;
  readonly #options: Set<string>;
  readonly #dense: Map<number, Uint32Array> = new Map();
  readonly #orders: Record<"price" | "title" | "created", KeyOrder>;
  readonly #available: Uint32Array;
  readonly #rankTables = new Map<CollectionData, RankTable>();
  /** A page's matches, reused by every page (made once: a large typed array costs more to make than to fill). */
  readonly #matches: Uint32Array;
  readonly #items: ItemTexts;
  /** Live stock's delta of the last generation a request carried (most requests carry the same one). */
  #live: Live | null = null;

  /** `from`: made by `view()` only. */
  constructor(data: BrowseData, from?: { base: VersionIndex; view: IndexView }) {
    this.size = data.size;
    this.#data = data;
    this.#offset = data.shard?.offset ?? 0;
    this.#slots = data.slots ?? null;
    if (from) {
      const { base, view } = from;
      this.#items = base.#items;
      this.#ids = base.#ids;
      this.#dense = base.#dense;
      this.#orders = base.#orders;
      this.#available = base.#available;
      const removed = bitmap(data.size);
      setAll(removed, view.removed);
      this.#catalog = andNot(bitmap(data.size), base.#catalog, removed);
      this.#products = view.products;
      this.#options = new Set(view.options);
      this.#matches = bitmap(data.size);
      this.#text = base.#text.view(view.scoring, removed);
      // The catalog's spellings where they differ: found by key (a view is made per version and shard).
      const values = data.values.slice();
      for (const [key, shown] of view.displays) {
        const id = base.#ids.get(key);
        const v = id === undefined ? undefined : values[id];
        if (v) values[id as number] = { ...v, d: shown };
      }
      this.#facets = base.#facets.view(this.#catalog, Array.from(view.removed), values, view.options);
      this.#collections = new Map(base.#collections);
      for (const [handle, c] of view.collections) {
        if (c === null) this.#collections.delete(handle);
        else this.#collections.set(handle, c);
      }
      for (const c of this.#collections.values()) this.#rankTables.set(c, base.#rankTables.get(c) ?? rankTable(c));
      return;
    }
    this.#items = new ItemTexts(data.items);
    this.#catalog = where(data.size, (p) => !Number.isNaN(data.prices[p]));
    const present = members(this.#catalog);
    this.#products = data.shard?.products ?? present.length;
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
    this.#text = new TextIndex(data.size, data.words, data.scoring);
    const built = data.built;
    const byKey = (key: ArrayLike<number>, ids: Uint32Array = order(key, present)): KeyOrder => ({ ids, key });
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
    this.#collections = data.collections;
    for (const [handle, c] of data.collections) this.#rankTables.set(c, built?.ranks.get(handle) ?? rankTable(c));
  }

  /**
   * This index answering for a change batch's catalog (issue 45): the same arrays, without the
   * products the batches deleted or replaced, scored and counted with the catalog's figures.
   */
  view(view: IndexView): VersionIndex {
    return new VersionIndex(this.#data, { base: this, view });
  }

  /** Which products this index holds: a range of catalog positions from `offset`, or a change batch's `slots`. */
  get held(): { offset: number; size: number; slots: Uint32Array | null } {
    return { offset: this.#offset, size: this.size, slots: this.#slots };
  }

  /** The collections as this index holds them (its members, in its ids). */
  get collections(): ReadonlyMap<string, CollectionData> {
    return this.#collections;
  }

  /** The derived parts a snapshot carries (BuiltParts), as this index holds them. */
  get built(): BuiltParts {
    const ranks = new Map<string, RankTable>();
    for (const [handle, c] of this.#collections) ranks.set(handle, this.#rankTables.get(c) as RankTable);
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

  /** Bytes held in typed arrays (items included, as held: deflated blocks and those inflated so far; handles, folded titles, words and value names aside). */
  get bytes(): number {
    const d = this.#data;
    let n =
      this.#catalog.byteLength +
      this.#available.byteLength +
      d.prices.byteLength +
      d.created.byteLength +
      d.titles.byteLength;
    for (const ids of d.postings) n += ids.byteLength;
    for (const c of this.#collections.values()) n += c.members.byteLength;
    for (const t of this.#rankTables.values()) n += t.ids.byteLength + t.ranks.byteLength;
    for (const bits of this.#dense.values()) n += bits.byteLength;
    for (const o of Object.values(this.#orders)) n += o.ids.byteLength;
    n += this.#items.bytes + this.#matches.byteLength;
    return n + this.#facets.bytes + this.#text.bytes;
  }

  /**
   * The filter admitting the products having any of `keys` of `facet` (a key no product has
   * admits nothing). One value on more than 1/DENSE of the products is its bitmap, kept by name.
   */
  #anyOf(facet: string, keys: readonly string[], live: Live | null = null): Group {
    const one = keys.length === 1 ? this.#ids.get(`${facet}\u0000${keys[0]}`) : undefined;
    const patched = one === undefined ? undefined : live?.bits.get(one);
    if (patched) return { facet, bits: patched };
    const dense = one === undefined ? undefined : this.#dense.get(one);
    if (dense) return { facet, bits: dense, keep: `v${one}` };
    const bits = bitmap(this.size);
    for (const key of keys) {
      const id = this.#ids.get(`${facet}\u0000${key}`);
      if (id === undefined) continue;
      const dense = live?.bits.get(id) ?? this.#dense.get(id);
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
    const live = this.#liveOf(filters.stock);
    let base: ProductSet = { bits: this.#catalog };
    let collection: CollectionData | null = null;
    if (scope.collection !== undefined) {
      collection = this.#collections.get(scope.collection) ?? null;
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
    let text: TextMatches | null = null;
    let partial: Uint32Array | null = null;
    let list: Uint32Array | null = null;
    if (filters.words.length > 0) {
      text = this.#text.search(filters.words, filters.plan);
      if (this.#text.relaxes(text, base.bits, filters.plan)) {
        // Second chance: the strict matches and those of all words but one, which rank below.
        partial = this.#text.partial(text, base.bits);
        const strict = this.#text.bits(text);
        const either = bitmap(this.size);
        for (let i = 0; i < either.length; i++) either[i] = (partial[i] as number) | (strict[i] as number);
        groups.push({ facet: null, bits: either });
      } else if (few && text.list && text.list.length * SPARSE < this.size) list = text.list;
      else groups.push({ facet: null, bits: this.#text.bits(text) });
    }
    if (filters.vendor) groups.push(this.#anyOf("vendor", filters.vendor));
    if (filters.product_type) groups.push(this.#anyOf("product_type", filters.product_type));
    if (filters.tag) groups.push(this.#anyOf("tag", filters.tag));
    if (filters.available !== undefined) groups.push(this.#anyOf("available", [String(filters.available)], live));
    for (const [name, keys] of filters.options) groups.push(this.#anyOf(optionFacet(name), keys, live));
    if (filters.price_min !== undefined || filters.price_max !== undefined) {
      const lo = filters.price_min ?? -Infinity;
      const hi = filters.price_max ?? Infinity;
      const prices = this.#data.prices;
      groups.push({
        facet: "price",
        bits: where(this.size, (p) => (prices[p] as number) >= lo && (prices[p] as number) <= hi),
      });
    }
    return { base, collection, groups, text, partial, few: list, live };
  }

  /**
   * Live stock's delta (Live) for `stock`'s generation, made on the first request carrying it.
   * A product's `available` value and its option values are the file's until live stock says
   * otherwise; then they are what its in-stock variants have. An option value no variant of the
   * catalog had in stock at publish has no value id in this index, so it stays out of filters
   * and facets until the next publish (the product's other values follow stock at once).
   */
  #liveOf(stock: LiveStock | undefined): Live | null {
    if (!stock) return null;
    if (this.#live?.gen === stock.gen) return this.#live;
    const values = this.#data.values;
    const follows = (v: number) =>
      (values[v] as FacetValueRow).f === "available" || (values[v] as FacetValueRow).f.startsWith("o:");
    const yes = this.#ids.get("available\u0000true");
    const no = this.#ids.get("available\u0000false");
    const bits = new Map<number, Uint32Array>();
    const patched = (v: number): Uint32Array => {
      let b = bits.get(v);
      if (!b) {
        b = bitmap(this.size);
        const dense = this.#dense.get(v);
        if (dense) b.set(dense);
        else setAll(b, this.#data.postings[v] as Uint32Array);
        bits.set(v, b);
      }
      return b;
    };
    const changes: StockChange[] = [];
    for (const [handle, [available, options]] of Object.entries(stock.products)) {
      const id = this.#idOf(handle);
      if (id === undefined) continue;
      const file = this.#facets.valuesOf(id).filter(follows);
      const now = new Set<number>();
      const a = available === 1 ? yes : no;
      if (a !== undefined) now.add(a);
      if (available === 1)
        for (const [name, value] of options) {
          const v = this.#ids.get(`${optionFacet(name)}\u0000${valueKey(value)}`);
          if (v !== undefined) now.add(v);
        }
      const minus = file.filter((v) => !now.has(v));
      const plus = [...now].filter((v) => !file.includes(v));
      if (minus.length === 0 && plus.length === 0) continue;
      changes.push({ id, minus, plus });
      const word = id >>> 5;
      const bit = 1 << (id & 31);
      for (const v of minus) {
        const b = patched(v);
        b[word] = (b[word] as number) & ~bit;
      }
      for (const v of plus) {
        const b = patched(v);
        b[word] = (b[word] as number) | bit;
      }
    }
    const live: Live = {
      gen: stock.gen,
      bits,
      changes,
      available: (yes === undefined ? undefined : bits.get(yes)) ?? this.#available,
    };
    this.#live = live;
    return live;
  }

  /** The facets answer of `filters` over `scope`. */
  facets(scope: Scope, filters: BrowseFilters): string {
    return facetsAnswer([this.counts(scope, filters)], filters);
  }

  /** The facet counts of `filters` over `scope` (what a shard answers: slices.ts sums them). */
  counts(scope: Scope, filters: BrowseFilters): FacetCounts {
    const r = this.#resolve(scope, filters);
    return this.#facets.count(r.base, r.groups, r.live?.changes);
  }

  /** What this index knows of q's words and strict matches in `scope` (shards.ts sums every shard's into a TextPlan). */
  textStats(scope: Scope, filters: BrowseFilters): TextStats {
    const r = this.#resolve(scope, { ...filters, words: [] });
    const text = this.#text.search(filters.words);
    const { own, terms } = this.#text.counts(filters.words);
    return { strict: this.#text.countIn(text, r.base.bits), own, terms, kept: text.kept, exact: text.exact };
  }

  /**
   * A page of matches as the list envelope (`GET /products` with browse parameters), or a
   * collection's products wrapped in the collection. Throws 400 for a cursor not among the matches.
   */
  async page(scope: Scope, q: BrowsePageQuery): Promise<string> {
    // One index: the match past the limit only says there is more, so it is not rendered.
    return pageBody([await this.slice(scope, q, undefined, q.limit)], scope.collection, q);
  }

  /**
   * The first `limit + 1` matches of a page in its direction, each with its position (slices.ts),
   * after the cursor: the handle of q's cursor (400 when it is not among the matches), or, when
   * `after` is given (a sharded page: another shard held the cursor), that position. Items are
   * rendered for the first `shown` matches (all of them by default: any may be among a merged
   * page's). Async only while those items' blocks are still deflated (ItemTexts.ready).
   */
  async slice(scope: Scope, q: BrowsePageQuery, after?: Position, shown = q.limit + 1): Promise<PageSlice> {
    const r = this.#resolve(scope, q, true);
    // Few matches of q stay a list, narrowed product by product: no bitmap walked whole.
    const few = r.few?.filter((id) => has(r.base.bits, id) && r.groups.every((g) => has(g.bits, id))) ?? null;
    let matches = r.base.bits;
    // The chain ANDs into #matches (the base and the groups may be kept sets: never written).
    if (!few)
      for (const [i, g] of r.groups.entries()) matches = and(i === 0 ? this.#matches : matches, matches, g.bits);
    const backwards = q.ending_before !== undefined;
    const ranks = new Ranks(
      this.#offset,
      this.#slots,
      r.collection,
      r.collection ? (this.#rankTables.get(r.collection) ?? null) : null,
    );
    let cursor = after === undefined ? undefined : this.#local(q.sort, after);
    let at: Position | null = null;
    const cursorHandle = q.starting_after ?? q.ending_before;
    if (after === undefined && cursorHandle !== undefined) {
      const id = this.#idOf(cursorHandle);
      const found = id !== undefined && (few ? few[lowerBound(few, id)] === id : has(matches, id));
      if (!found) {
        throw invalidParameter(
          isPlainList(q)
            ? `No item with handle "${cursorHandle}" in ${r.collection ? "this collection" : "the catalog"}.`
            : `No product with handle "${cursorHandle}" among the matches of this query.`,
          backwards ? "ending_before" : "starting_after",
        );
      }
      cursor = at = this.#position(q.sort, id, r, ranks);
    }
    const count = few ? few.length : popcount(matches);
    const { ids, keys } = this.#walk(
      q.sort,
      few ?? matches,
      few !== null,
      count,
      r,
      ranks,
      cursor,
      backwards,
      q.limit + 1,
    );
    const rendered = ids.slice(0, shown);
    // Read before the await: the partial bitmap is the text index's own, reused by the next search.
    const partial = r.partial;
    const partials = rendered.map((id) => partial !== null && has(partial, id));
    let strict = count;
    if (partial)
      for (let i = 0; i < matches.length; i++) strict -= bitCount((matches[i] as number) & (partial[i] as number));
    const ready = this.#items.ready(rendered);
    if (ready) await ready;
    const rank = ranks.rankOf();
    return {
      count,
      total: r.collection?.n ?? this.#products,
      collection: r.collection ? { title: r.collection.title, n: r.collection.n } : null,
      items: rendered.map((id, i) =>
        this.#itemLine(
          id,
          r.collection !== null,
          q.image,
          partials[i] as boolean,
          r.live?.available ?? this.#available,
        ),
      ),
      positions: ids.map((id, i) => this.#titled(q.sort, id, { key: keys[i] as number, rank: rank(id) })),
      at,
      ...(partial ? { strict } : {}),
    };
  }

  /** Where product `id` (one of the matches) stands in `sort` (slices.ts Position). */
  #position(sort: Sort, id: number, r: Resolved, ranks: Ranks): Position {
    const rank = ranks.rankOf()(id);
    if (sort === "catalog") return { key: 0, rank };
    if (sort === "relevance")
      return { key: this.#text.relevance(Uint32Array.of(id), r.text as TextMatches, r.partial)[0] as number, rank };
    const { key, desc } = KEYED[sort];
    const k = this.#orders[key].key[id] as number;
    return this.#titled(sort, id, { key: desc ? -k : k, rank });
  }

  /** A position in a title sort with product `id`'s folded title, which orders it among other indexes' (slices.ts). */
  #titled(sort: Sort, id: number, position: Position): Position {
    if (sort !== "title_asc" && sort !== "title_desc") return position;
    return { ...position, text: stringAt(this.#data.titleKeys, id) };
  }

  /**
   * Another index's position (a sharded page's cursor) in this index's keys. A title's rank is
   * counted per index, so a title sort's cursor is placed by its folded title: the rank of that
   * title here, or half way past the last title here below it.
   */
  #local(sort: Sort, after: Position): Position {
    if (after.text === undefined || (sort !== "title_asc" && sort !== "title_desc")) return after;
    const { ids, key } = this.#orders.title;
    const keys = this.#data.titleKeys;
    const text = after.text;
    const lo = firstNotBelow(0, ids.length, (at) => compareCodePoints(stringAt(keys, ids[at] as number), text) < 0);
    const found = lo < ids.length && stringAt(keys, ids[lo] as number) === after.text;
    const k = found ? (key[ids[lo] as number] as number) : lo > 0 ? (key[ids[lo - 1] as number] as number) + 0.5 : 0.5;
    return { key: sort === "title_desc" ? -k : k, rank: after.rank, text: after.text };
  }

  #itemLine(id: number, inCollection: boolean, image: boolean, partial: boolean, available: Uint32Array): string {
    const json = (k: number) => this.#items.json(k);
    let line = json(id * 2).slice(0, -1);
    if (inCollection) {
      const member = collectionMember(stringAt(this.#data.handles, id), has(available, id));
      line += `,${JSON.stringify(member).slice(1, -1)}`;
    }
    if (image) line += `,"image":${json(id * 2 + 1)}`;
    if (partial) line += `,"match":"partial"`;
    return `${line}}`;
  }

  /**
   * The first `take` matches in the page's order (reversed when paging backwards) after the
   * cursor's position, with their keys (slices.ts Position). Every order is a run of segments of
   * equal key (one segment for catalog order, one per relevance level, one per tie of a keyed
   * sort), each in scope order (rank) so ties fall back to catalog or collection order. Few
   * matches (under 1/SPARSE of the products, or given as a list: `listed`, ascending ids) are
   * sorted instead of walked.
   */
  #walk(
    sort: Sort,
    matches: Uint32Array,
    listed: boolean,
    count: number,
    r: Resolved,
    ranks: Ranks,
    cursor: Position | undefined,
    backwards: boolean,
    take: number,
  ): { ids: number[]; keys: number[] } {
    const ids: number[] = [];
    const keys: number[] = [];
    const matched = () => (listed ? matches : members(matches));
    const dir = backwards ? -1 : 1;
    /** Whether (key, rank) comes after the cursor in the page's direction. */
    const past = (key: number, rank: number) =>
      cursor === undefined || dir * (key - cursor.key || rank - cursor.rank) > 0;
    if (sort === "catalog" && !listed) {
      ranks.scan(matches, cursor?.rank, backwards, take, ids);
      for (let i = 0; i < ids.length; i++) keys.push(0);
      return { ids, keys };
    }
    if (sort === "relevance") {
      // Strict matches first, then the highest score (text-index.ts), then scope order: the
      // first `take` after the cursor in that order (before it, nearest first, backwards).
      const list = matched();
      const key = this.#text.relevance(list, r.text as TextMatches, r.partial);
      const rank = ranks.rankOf();
      const picked = firstInOrder(
        key,
        dir,
        (i, j) => rank(list[i] as number) - rank(list[j] as number),
        take,
        cursor === undefined ? null : (i) => past(key[i] as number, rank(list[i] as number)),
      );
      for (const i of picked) {
        ids.push(list[i] as number);
        keys.push(key[i] as number);
      }
      return { ids, keys };
    }
    const keyed = sort === "catalog" ? null : KEYED[sort];
    const o = keyed ? this.#orders[keyed.key] : null;
    const sign = keyed?.desc ? -1 : 1;
    if (!keyed || !o || listed || count * SPARSE < o.ids.length) {
      // Few matches: sorting them costs less than walking the order past every other product.
      const rank = ranks.rankOf();
      const key = o?.key;
      const list = Array.from(matched(), (id) => ({ id, key: key ? sign * (key[id] as number) : 0, rank: rank(id) }));
      list.sort((a, b) => dir * (a.key - b.key || a.rank - b.rank));
      for (const e of list) {
        if (ids.length === take) break;
        if (!past(e.key, e.rank)) continue;
        ids.push(e.id);
        keys.push(e.key);
      }
      return { ids, keys };
    }
    // Walking the (key, id) order forwards or backwards, a segment at a time, from the cursor's key.
    const key = o.key;
    const order = o.ids;
    const forward = keyed.desc === backwards;
    const step = forward ? 1 : -1;
    let at = forward ? 0 : order.length - 1;
    if (cursor !== undefined) {
      const k = sign * cursor.key;
      at = forward ? keyBound(order, key, k, false) : keyBound(order, key, k, true) - 1;
    }
    const rank = ranks.rankOf();
    const segment: number[] = [];
    while (ids.length < take && at >= 0 && at < order.length) {
      const k = key[order[at] as number] as number;
      let end = at;
      segment.length = 0;
      while (end >= 0 && end < order.length && key[order[end] as number] === k) {
        const id = order[end] as number;
        if (has(matches, id)) segment.push(id);
        end += step;
      }
      ranks.order(segment, backwards);
      const signed = sign * k;
      // Only the cursor's own segment holds products at or before it.
      const tied = cursor !== undefined && signed === cursor.key;
      for (const id of segment) {
        if (ids.length === take) break;
        if (tied && !past(signed, rank(id))) continue;
        ids.push(id);
        keys.push(signed);
      }
      at = end;
    }
    return { ids, keys };
  }
}

const KEYED: Record<Exclude<Sort, "catalog" | "relevance">, { key: "price" | "title" | "created"; desc: boolean }> = {
  price_asc: { key: "price", desc: false },
  price_desc: { key: "price", desc: true },
  title_asc: { key: "title", desc: false },
  title_desc: { key: "title", desc: true },
  newest: { key: "created", desc: true },
};

/** The first place of `order` (ids ascending by `key`) whose key is not below `k` (above it when `above`). */
function keyBound(order: Uint32Array, key: ArrayLike<number>, k: number, above: boolean): number {
  return firstNotBelow(0, order.length, (at) => {
    const m = key[order[at] as number] as number;
    return m < k || (above && m === k);
  });
}

/**
 * The first `take` places of `key` in (key, then `tie`) order, reversed when `dir` is -1, among
 * those `past` admits (all without it: it says which come after the cursor), kept sorted as they
 * come (binary insertion); a place that cannot enter is turned away on its key alone.
 */
function firstInOrder(
  key: Float64Array,
  dir: 1 | -1,
  tie: (i: number, j: number) => number,
  take: number,
  past: ((i: number) => boolean) | null,
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
    if (past && !past(i)) continue;
    kept.splice(
      firstNotBelow(0, kept.length, (at) => compare(kept[at] as number, i) <= 0),
      0,
      i,
    );
    if (kept.length > take) kept.pop();
  }
  return kept;
}

/** A collection's ranks by product: its members sorted by id, each with its rank (its place in the whole collection). */
export interface RankTable {
  ids: Uint32Array;
  ranks: Uint32Array;
}

function rankTable(c: CollectionData): RankTable {
  const { members, ranks } = c;
  const order = Uint32Array.from(members.keys()).sort((a, b) => (members[a] as number) - (members[b] as number));
  return {
    ids: Uint32Array.from(order, (i) => members[i] as number),
    ranks: ranks ? Uint32Array.from(order, (i) => ranks[i] as number) : order,
  };
}

/**
 * Scope order: catalog order (catalog positions ascending) or a collection's. Scans a set in
 * that order, and orders a segment by it. Ranks are the whole catalog's or collection's, so a
 * shard's compare with another's.
 */
class Ranks {
  readonly #offset: number;
  /** A change batch's index: each id's catalog rank (its slot). */
  readonly #slots: Uint32Array | null;
  readonly #collection: CollectionData | null;
  readonly #table: RankTable | null;

  constructor(offset: number, slots: Uint32Array | null, collection: CollectionData | null, table: RankTable | null) {
    this.#offset = offset;
    this.#slots = slots;
    this.#collection = collection;
    this.#table = table;
  }

  /** The first id ranked after `rank` in catalog order (backwards: the last ranked before it). */
  #nextId(rank: number, backwards: boolean): number {
    const slots = this.#slots;
    if (!slots) return rank - this.#offset + (backwards ? -1 : 1);
    const lo = lowerBound(slots, backwards ? rank : rank + 1);
    return backwards ? lo - 1 : lo;
  }

  /** Up to `take` ids of `bits` in scope order after rank `after` (from the start without one). */
  scan(bits: Uint32Array, after: number | undefined, backwards: boolean, take: number, out: number[]): void {
    const c = this.#collection;
    if (!c) {
      const last = bits.length * 32 - 1;
      const from = after === undefined ? (backwards ? last : 0) : this.#nextId(after, backwards);
      scan(bits, backwards ? Math.min(from, last) : Math.max(from, 0), backwards, take, out);
      return;
    }
    const list = c.members;
    const step = backwards ? -1 : 1;
    let i = backwards ? list.length - 1 : 0;
    if (after !== undefined) {
      // The first member ranked after `after` (backwards: the last ranked before it).
      const ranks = c.ranks;
      const bound = after + (backwards ? 0 : 1);
      const lo = firstNotBelow(0, list.length, (at) => (ranks ? (ranks[at] as number) : at) < bound);
      i = backwards ? lo - 1 : lo;
    }
    for (; i >= 0 && i < list.length && out.length < take; i += step) {
      const id = list[i] as number;
      if (has(bits, id)) out.push(id);
    }
  }

  /** Each id's place in scope order: its catalog position, its rank in a collection (binary search). */
  rankOf(): (id: number) => number {
    const t = this.#table;
    if (!t) {
      const slots = this.#slots;
      if (slots) return (id) => slots[id] as number;
      const offset = this.#offset;
      return (id) => id + offset;
    }
    return (id) => t.ranks[firstNotBelow(0, t.ids.length - 1, (at) => (t.ids[at] as number) < id)] as number;
  }

  /** Sorts `ids` into scope order (reversed when backwards). */
  order(ids: number[], backwards: boolean): void {
    if (ids.length < 2) return;
    const rank = this.rankOf();
    ids.sort(backwards ? (a, b) => rank(b) - rank(a) : (a, b) => rank(a) - rank(b));
  }
}
