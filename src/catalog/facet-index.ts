import { type Facet, facetsBody, facetValues, priceFacet } from "./browse-facets.ts";
import { optionFacet } from "./browse-layout.ts";
import type { BrowseFilters } from "./browse-query.ts";
import { notFound, unknownParameter } from "./errors.ts";

/**
 * Disjunctive facet counts over one catalog version, held in memory (by the FacetCounter
 * Durable Object, one per version). Why not SQL: a facets answer with A active filters counts
 * A + 1 match sets, every match times its values; at 100,000 products the bench's three filters
 * are ~137,000 (match, value) pairs plus three sets of 24-32k products, which SQLite counts in
 * ~147 ms (~0.3 us a pair) and D1 runs one statement at a time. Here the same answer is a few
 * bitwise ANDs of 32-bit words (one word per 32 products) and one pass over each match set's
 * value lists in typed arrays: about a millisecond (figures in README, "Facet counts").
 *
 * Product ids are catalog positions (0 .. size - 1, as in the browse index); value ids are the
 * index's (`d`): every vendor, non-empty product type, tag, option value (from available
 * variants) and `available` true/false.
 */

/** A facet value as the index names it: facet (`vendor`, `product_type`, `tag`, `available`, `o:<option>`), key, display spelling. */
export interface FacetValueRow {
  f: string;
  k: string;
  d: string;
}

/** What the index is built from, read once per version (BrowseStore.facetColumns). */
export interface FacetColumns {
  /** Product ids run 0 .. size - 1. */
  size: number;
  /** By value id; ids of one facet are one range, ordered by key. */
  values: FacetValueRow[];
  /** By value id: the products having it, in any order. */
  postings: Uint32Array[];
  /** By product id: its lowest price in minor units (NaN for an id no product has). */
  prices: Float64Array;
  /** Option API names in order of first appearance. */
  options: string[];
  /** Every collection handle, each with its products (in any order). */
  collections: Map<string, Uint32Array>;
}

/** Where facets count: the whole catalog, or one collection's products. */
export type FacetScope = { collection?: undefined } | { collection: string };

const OWN_FACETS = ["vendor", "product_type", "tag", "available"] as const;

/** One active filter: the products it admits, and the facet it leaves out of its own counts (null for q). */
interface Group {
  facet: string | null;
  bits: Uint32Array;
}

function bitmap(size: number): Uint32Array {
  return new Uint32Array((size + 31) >>> 5);
}

function setAll(bits: Uint32Array, ids: Uint32Array): void {
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i] as number;
    bits[id >>> 5] = (bits[id >>> 5] as number) | (1 << (id & 31));
  }
}

/** `out = a & b`, word by word. */
function and(out: Uint32Array, a: Uint32Array, b: Uint32Array): Uint32Array {
  for (let i = 0; i < out.length; i++) out[i] = (a[i] as number) & (b[i] as number);
  return out;
}

/**
 * One facet's values per product. A facet with at most one value per product (vendor, product
 * type, available) is a column of value ids (-1 for none); any other (tags, an option) lists
 * each product's value ids: `ids[starts[p] .. starts[p + 1]]`.
 */
type Column = ({ one: Int32Array } | { starts: Uint32Array; ids: Uint32Array }) & {
  /** The facet's value ids, each with its products. */
  postings: readonly [vid: number, ids: Uint32Array][];
  /** (product, value) pairs in all: what counting from the postings costs. */
  pairs: number;
};

/** The facet's column, from its values' postings. */
function column(size: number, postings: readonly [vid: number, ids: Uint32Array][]): Column {
  const starts = new Uint32Array(size + 1);
  for (const [, ids] of postings) for (let i = 0; i < ids.length; i++) starts[(ids[i] as number) + 1] = (starts[(ids[i] as number) + 1] as number) + 1;
  const pairs = postings.reduce((n, [, ids]) => n + ids.length, 0);
  if (starts.every((n) => n <= 1)) {
    const one = new Int32Array(size).fill(-1);
    for (const [vid, ids] of postings) for (let i = 0; i < ids.length; i++) one[ids[i] as number] = vid;
    return { one, postings, pairs };
  }
  for (let p = 0; p < size; p++) starts[p + 1] = (starts[p + 1] as number) + (starts[p] as number);
  const out = new Uint32Array(starts[size] as number);
  const next = starts.slice(0, size);
  for (const [vid, ids] of postings) {
    for (let i = 0; i < ids.length; i++) {
      const p = ids[i] as number;
      const at = next[p] as number;
      out[at] = vid;
      next[p] = at + 1;
    }
  }
  return { starts, ids: out, postings, pairs };
}

/** The ids of a bitmap's set bits, in order. */
function members(bits: Uint32Array): Uint32Array {
  let n = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w] as number;
    while (word !== 0) {
      word &= word - 1;
      n++;
    }
  }
  const out = new Uint32Array(n);
  let at = 0;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w] as number;
    while (word !== 0) {
      const low = word & -word;
      out[at++] = (w << 5) | (31 - Math.clz32(low));
      word ^= low;
    }
  }
  return out;
}

/**
 * Adds to `counts[v]`, for every value `v` of `column`, how many products of `products` (the
 * set bits of `bits`) have it. Whichever visits less: each product's values (a facet most of
 * the products have), or each value's products tested against the bitmap (a rare facet).
 */
function tally(column: Column, products: Uint32Array, bits: Uint32Array, counts: Uint32Array): void {
  const perProduct = "one" in column ? products.length : (products.length * column.ids.length) / Math.max(1, column.starts.length - 1);
  if (column.pairs < perProduct) {
    for (const [vid, ids] of column.postings) {
      let n = 0;
      for (let i = 0; i < ids.length; i++) {
        const p = ids[i] as number;
        n += ((bits[p >>> 5] as number) >>> (p & 31)) & 1;
      }
      counts[vid] = (counts[vid] as number) + n;
    }
    return;
  }
  if ("one" in column) {
    const one = column.one;
    for (let i = 0; i < products.length; i++) {
      const v = one[products[i] as number] as number;
      if (v >= 0) counts[v] = (counts[v] as number) + 1;
    }
    return;
  }
  const { starts, ids } = column;
  for (let i = 0; i < products.length; i++) {
    const p = products[i] as number;
    for (let j = starts[p] as number, end = starts[p + 1] as number; j < end; j++) {
      const v = ids[j] as number;
      counts[v] = (counts[v] as number) + 1;
    }
  }
}

export class FacetIndex {
  /** Products (ids 0 .. size - 1): a q bitmap has this many bits. */
  readonly size: number;
  readonly #values: FacetValueRow[];
  readonly #options: string[];
  readonly #optionSet: Set<string>;
  readonly #collections: Map<string, Uint32Array>;
  readonly #prices: Float64Array;
  readonly #postings: Uint32Array[];
  /** `facet \u0000 key` -> value id. */
  readonly #ids = new Map<string, number>();
  /** Facet name (`vendor`, `o:size`, ...) -> its values per product. */
  readonly #columns = new Map<string, Column>();
  /** Every product of the catalog: which, and their price range. */
  readonly #catalog: Uint32Array;
  readonly #products: number;
  readonly #minPrice: number;
  readonly #maxPrice: number;

  constructor(columns: FacetColumns) {
    this.size = columns.size;
    this.#values = columns.values;
    this.#options = columns.options;
    this.#optionSet = new Set(columns.options);
    this.#collections = columns.collections;
    this.#prices = columns.prices;
    this.#postings = columns.postings;
    const byFacet = new Map<string, [number, Uint32Array][]>();
    columns.values.forEach((v, id) => {
      this.#ids.set(`${v.f}\u0000${v.k}`, id);
      const list = byFacet.get(v.f) ?? [];
      list.push([id, columns.postings[id] ?? new Uint32Array(0)]);
      byFacet.set(v.f, list);
    });
    for (const [facet, postings] of byFacet) this.#columns.set(facet, column(this.size, postings));
    this.#catalog = bitmap(this.size);
    for (let p = 0; p < this.size; p++) if (!Number.isNaN(this.#prices[p])) this.#catalog[p >>> 5] = (this.#catalog[p >>> 5] as number) | (1 << (p & 31));
    const { n, min, max } = this.#priceRange(members(this.#catalog));
    this.#products = n;
    this.#minPrice = min;
    this.#maxPrice = max;
  }

  /** Bytes held (typed arrays only): the figure the README reports per version. */
  get bytes(): number {
    let n = this.#prices.byteLength + this.#catalog.byteLength;
    for (const ids of this.#postings) n += ids.byteLength;
    for (const ids of this.#collections.values()) n += ids.byteLength;
    for (const c of this.#columns.values()) n += "one" in c ? c.one.byteLength : c.starts.byteLength + c.ids.byteLength;
    return n;
  }

  #priceRange(products: Uint32Array): { n: number; min: number; max: number } {
    const prices = this.#prices;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < products.length; i++) {
      const price = prices[products[i] as number] as number;
      if (price < min) min = price;
      if (price > max) max = price;
    }
    return { n: products.length, min, max };
  }

  /** The products having any of `keys` of `facet` (a key no product has admits nothing). */
  #anyOf(facet: string, keys: readonly string[]): Uint32Array {
    const bits = bitmap(this.size);
    for (const key of keys) {
      const id = this.#ids.get(`${facet}\u0000${key}`);
      if (id !== undefined) setAll(bits, this.#postings[id] as Uint32Array);
    }
    return bits;
  }

  #groups(filters: BrowseFilters, matches: Uint32Array | null): Group[] {
    const groups: Group[] = [];
    if (matches) groups.push({ facet: null, bits: matches });
    if (filters.vendor) groups.push({ facet: "vendor", bits: this.#anyOf("vendor", filters.vendor) });
    if (filters.product_type) groups.push({ facet: "product_type", bits: this.#anyOf("product_type", filters.product_type) });
    if (filters.tag) groups.push({ facet: "tag", bits: this.#anyOf("tag", filters.tag) });
    if (filters.available !== undefined) groups.push({ facet: "available", bits: this.#anyOf("available", [String(filters.available)]) });
    for (const [name, keys] of filters.options) groups.push({ facet: optionFacet(name), bits: this.#anyOf(optionFacet(name), keys) });
    if (filters.price_min !== undefined || filters.price_max !== undefined) {
      const lo = filters.price_min ?? -Infinity;
      const hi = filters.price_max ?? Infinity;
      const bits = bitmap(this.size);
      for (let p = 0; p < this.size; p++) {
        const price = this.#prices[p] as number;
        if (price >= lo && price <= hi) bits[p >>> 5] = (bits[p >>> 5] as number) | (1 << (p & 31));
      }
      groups.push({ facet: "price", bits });
    }
    return groups;
  }

  /**
   * The facets answer (contract section 7) of `filters` over `scope`. `matches` is the bitmap of
   * the products `q` matches (full-text search stays in the browse index; bit `id & 31` of word
   * `id >> 5`, `size` bits), or null without q. Throws 404 for
   * an unknown collection and 400 for an option name no product has.
   */
  facets(scope: FacetScope, filters: BrowseFilters, matches: Uint32Array | null): string {
    let base = this.#catalog;
    if (scope.collection !== undefined) {
      const members = this.#collections.get(scope.collection);
      if (!members) throw notFound(`No collection has the handle "${scope.collection}".`, "handle");
      base = bitmap(this.size);
      setAll(base, members);
      and(base, base, this.#catalog);
    }
    const missing = filters.options.find(([name]) => !this.#optionSet.has(name));
    if (missing) throw unknownParameter(`Unknown query parameter: option.${missing[0]} (no product of the catalog has an option named "${missing[0]}").`, `option.${missing[0]}`);

    // Every match set a disjunctive answer needs: all filters (`all`), and for each filtered
    // facet all filters but its own (`except`), from ANDs of prefixes and suffixes.
    const groups = this.#groups(filters, matches);
    const words = base.length;
    const prefix: Uint32Array[] = [base];
    for (const g of groups) prefix.push(and(new Uint32Array(words), prefix.at(-1) as Uint32Array, g.bits));
    const all = prefix.at(-1) as Uint32Array;
    const counts = new Uint32Array(this.#values.length);
    if (groups.length === 0 && base === this.#catalog) {
      // The whole catalog: every value's count is its posting list's length.
      this.#postings.forEach((ids, v) => {
        counts[v] = ids.length;
      });
      return facetsBody(this.#products, this.#answer(filters, counts, this.#minPrice, this.#maxPrice));
    }
    // Over `all`, every facet without a filter; over each `except`, its own facet.
    const filtered = new Set(groups.map((g) => g.facet));
    const matched = members(all);
    const range = this.#priceRange(matched);
    for (const [facet, column] of this.#columns) if (!filtered.has(facet)) tally(column, matched, all, counts);
    let suffix: Uint32Array | null = null;
    for (let i = groups.length - 1; i >= 0; i--) {
      const g = groups[i] as Group;
      if (g.facet !== null) {
        const bits = suffix ? and(new Uint32Array(words), prefix[i] as Uint32Array, suffix) : (prefix[i] as Uint32Array);
        const except = members(bits);
        if (g.facet === "price") {
          const own = this.#priceRange(except);
          range.min = own.min;
          range.max = own.max;
        } else {
          const column = this.#columns.get(g.facet);
          if (column) tally(column, except, bits, counts);
        }
      }
      suffix = suffix ? and(new Uint32Array(words), suffix, g.bits) : g.bits;
    }
    return facetsBody(range.n, this.#answer(filters, counts, range.min, range.max));
  }

  #answer(filters: BrowseFilters, counts: Uint32Array, min: number, max: number): Facet[] {
    const counted = new Map<string, { key: string; value: string; count: number }[]>();
    counts.forEach((count, id) => {
      if (count === 0) return;
      const v = this.#values[id] as FacetValueRow;
      let list = counted.get(v.f);
      if (!list) counted.set(v.f, (list = []));
      list.push({ key: v.k, value: v.d, count });
    });
    const given = (facet: string) => (key: string) => filters.given.get(`${facet}\u0000${key}`) ?? key;
    const facets: Facet[] = OWN_FACETS.map((name) => {
      const selected = name === "available" ? (filters.available === undefined ? [] : [String(filters.available)]) : filters[name];
      return { name, values: facetValues(counted.get(name) ?? [], selected, given(name)) };
    });
    for (const name of this.#options) {
      const keys = filters.options.find(([n]) => n === name)?.[1];
      facets.push({ name: `option.${name}`, values: facetValues(counted.get(optionFacet(name)) ?? [], keys, given(`option.${name}`)) });
    }
    facets.push(min === Infinity ? priceFacet(null, null) : priceFacet(min, max));
    return facets;
  }
}
