import { type Facet, facetsBody, facetValues, priceFacet } from "./browse-facets.ts";
import { optionFacet } from "./browse-layout.ts";
import type { BrowseFilters } from "./browse-query.ts";
import { and, popcount } from "./bitmap.ts";

/**
 * Disjunctive facet counts over one catalog version, held in memory (part of VersionIndex, which
 * the BrowseEngine Durable Object holds per version). Why not SQL: a facets answer with A active
 * filters counts A + 1 match sets, every match times its values; at 100,000 products the
 * bench's three filters are ~137,000 (match, value) pairs plus three sets of 24-32k products,
 * which SQLite counts in ~147 ms (~0.3 us a pair). Here the same answer is a few bitwise ANDs
 * of 32-bit words and one pass over each match set's value lists in typed arrays: about a
 * millisecond (figures in README, "Browse in memory").
 *
 * Value ids are the index's (`d`): every vendor, non-empty product type, tag, option value
 * (from available variants) and `available` true/false.
 */

/** A facet value as the index names it: facet (`vendor`, `product_type`, `tag`, `available`, `o:<option>`), key, display spelling. */
export interface FacetValueRow {
  f: string;
  k: string;
  d: string;
}

const OWN_FACETS = ["vendor", "product_type", "tag", "available"] as const;

/** One active filter: the products it admits, and the facet it leaves out of its own counts (null for q). */
export interface Group {
  facet: string | null;
  bits: Uint32Array;
}
/**
 * One facet's values per product. A facet with at most one value per product (vendor, product
 * type, available) is a column of value ids (-1 for none); any other (tags, an option) lists
 * each product's value ids: `ids[starts[p] .. starts[p + 1]]`.
 */
type Column = ({ one: Int32Array } | { starts: Uint32Array; ids: Uint16Array | Uint32Array }) & {
  /** The facet's value ids, each with its products. */
  postings: readonly [vid: number, ids: Uint32Array][];
  /** (product, value) pairs in all: what counting from the postings costs. */
  pairs: number;
};

/** The facet's column, from its values' postings. */
function column(size: number, values: number, postings: readonly [vid: number, ids: Uint32Array][]): Column {
  const starts = new Uint32Array(size + 1);
  for (const [, ids] of postings) for (let i = 0; i < ids.length; i++) starts[(ids[i] as number) + 1] = (starts[(ids[i] as number) + 1] as number) + 1;
  const pairs = postings.reduce((n, [, ids]) => n + ids.length, 0);
  if (starts.every((n) => n <= 1)) {
    const one = new Int32Array(size).fill(-1);
    for (const [vid, ids] of postings) for (let i = 0; i < ids.length; i++) one[ids[i] as number] = vid;
    return { one, postings, pairs };
  }
  for (let p = 0; p < size; p++) starts[p + 1] = (starts[p + 1] as number) + (starts[p] as number);
  // Value ids fit 16 bits in any catalog with fewer than 65,536 facet values: half the bytes to stream.
  const out = values < 65_536 ? new Uint16Array(starts[size] as number) : new Uint32Array(starts[size] as number);
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

/** (product, value) pairs a per-product tally over `n` products visits in `column`. */
function perProduct(column: Column, n: number): number {
  return "one" in column ? n : (n * column.ids.length) / Math.max(1, column.starts.length - 1);
}

/**
 * Adds to `counts[v]`, for every value `v` of `column`, how many products of `bits` (`n` of
 * them) have it. Whichever visits less: each product's values (a facet most of the products
 * have), or each value's products tested against the bitmap (a rare facet).
 */
function tally(column: Column, bits: Uint32Array, n: number, counts: Uint32Array): void {
  if (column.pairs < perProduct(column, n)) {
    for (const [vid, ids] of column.postings) {
      let found = 0;
      for (let i = 0; i < ids.length; i++) {
        const p = ids[i] as number;
        found += ((bits[p >>> 5] as number) >>> (p & 31)) & 1;
      }
      counts[vid] = (counts[vid] as number) + found;
    }
    return;
  }
  if ("one" in column) {
    const one = column.one;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w] as number;
      while (word !== 0) {
        const low = word & -word;
        const v = one[(w << 5) | (31 - Math.clz32(low))] as number;
        if (v >= 0) counts[v] = (counts[v] as number) + 1;
        word ^= low;
      }
    }
    return;
  }
  const { starts, ids } = column;
  for (let w = 0; w < bits.length; w++) {
    let word = bits[w] as number;
    while (word !== 0) {
      const low = word & -word;
      const p = (w << 5) | (31 - Math.clz32(low));
      for (let j = starts[p] as number, end = starts[p + 1] as number; j < end; j++) {
        const v = ids[j] as number;
        counts[v] = (counts[v] as number) + 1;
      }
      word ^= low;
    }
  }
}

export class FacetIndex {
  readonly #values: readonly FacetValueRow[];
  readonly #options: readonly string[];
  readonly #prices: Float64Array;
  readonly #postings: readonly Uint32Array[];
  /** Facet name (`vendor`, `o:size`, ...) -> its values per product. */
  readonly #columns = new Map<string, Column>();
  /** Every value of every facet per product: one pass counts all facets over a match set. */
  readonly #every: Column;
  /** The landing answer's: every product of the catalog, and their price range. */
  readonly #products: number;
  readonly #minPrice: number;
  readonly #maxPrice: number;

  /** `catalog`: every product of the version; `prices` by product (NaN for an id no product has). */
  constructor(size: number, values: readonly FacetValueRow[], postings: readonly Uint32Array[], prices: Float64Array, options: readonly string[], catalog: Uint32Array) {
    this.#values = values;
    this.#options = options;
    this.#prices = prices;
    this.#postings = postings;
    const byFacet = new Map<string, [number, Uint32Array][]>();
    values.forEach((v, id) => {
      const list = byFacet.get(v.f) ?? [];
      list.push([id, postings[id] ?? new Uint32Array(0)]);
      byFacet.set(v.f, list);
    });
    for (const [facet, list] of byFacet) this.#columns.set(facet, column(size, values.length, list));
    this.#every = column(size, values.length, [...byFacet.values()].flat());
    const { n, min, max } = this.#priceRange(catalog);
    this.#products = n;
    this.#minPrice = min;
    this.#maxPrice = max;
  }

  /** Bytes held by the per-facet columns (the postings and prices are VersionIndex's). */
  get bytes(): number {
    let n = 0;
    for (const c of [...this.#columns.values(), this.#every]) n += "one" in c ? c.one.byteLength : c.starts.byteLength + c.ids.byteLength;
    return n;
  }

  /** How many products `bits` holds, and their price range. */
  #priceRange(bits: Uint32Array): { n: number; min: number; max: number } {
    const prices = this.#prices;
    let n = 0;
    let min = Infinity;
    let max = -Infinity;
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w] as number;
      while (word !== 0) {
        const low = word & -word;
        const price = prices[(w << 5) | (31 - Math.clz32(low))] as number;
        if (price < min) min = price;
        if (price > max) max = price;
        n++;
        word ^= low;
      }
    }
    return { n, min, max };
  }

  /**
   * The facets answer (contract section 7) of `filters`, whose active filters are `groups`, over
   * the products of `base` (the catalog, or a collection's); `landing` when there is no filter
   * and `base` is the whole catalog (the counts are then the postings' lengths).
   *
   * Every facet is counted over the matches of all filters (`all`) in one pass over their
   * values; a filtered facet's count is over the matches of every other filter (`except`),
   * which holds `all`, so it gets `except` minus `all` (the products its own filter turns away)
   * added: of the bench's three filters at 100,000 products, ~12,000 matches and ~13,000 turned
   * away per filter, instead of recounting 24-32,000 per filter.
   */
  count(base: Uint32Array, landing: boolean, groups: readonly Group[], filters: BrowseFilters): string {
    const counts = new Uint32Array(this.#values.length);
    if (landing) {
      this.#postings.forEach((ids, v) => {
        counts[v] = ids.length;
      });
      return facetsBody(this.#products, this.#answer(filters, counts, this.#minPrice, this.#maxPrice));
    }
    // `all`, and for each filter the AND of every other one, from ANDs of prefixes and suffixes.
    const words = base.length;
    const prefix: Uint32Array[] = [base];
    for (const g of groups) prefix.push(and(new Uint32Array(words), prefix.at(-1) as Uint32Array, g.bits));
    const all = prefix.at(-1) as Uint32Array;
    const range = this.#priceRange(all);
    tally(this.#every, all, range.n, counts);
    let suffix: Uint32Array | null = null;
    for (let i = groups.length - 1; i >= 0; i--) {
      const g = groups[i] as Group;
      if (g.facet !== null) {
        // Matched by every other filter, turned away by this one.
        const away = suffix ? and(new Uint32Array(words), prefix[i] as Uint32Array, suffix) : (prefix[i] as Uint32Array).slice();
        for (let w = 0; w < words; w++) away[w] = (away[w] as number) & ~(g.bits[w] as number);
        if (g.facet === "price") {
          const own = this.#priceRange(away);
          range.min = Math.min(range.min, own.min);
          range.max = Math.max(range.max, own.max);
        } else {
          const column = this.#columns.get(g.facet);
          if (column) tally(column, away, popcount(away), counts);
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
