import type { CountedValue } from "../facets.ts";
import type { FacetCounts } from "../slices.ts";
import { and, andNot, bitmap, has, popcount } from "./bitmap.ts";

/**
 * Disjunctive facet counts over one catalog version, held in memory (part of VersionIndex, which
 * the BrowseEngine Durable Object holds per version). Why not SQL: a facets answer with A active
 * filters counts A + 1 match sets, every match times its values; at 100,000 products the
 * bench's three filters are ~137,000 (match, value) pairs plus three sets of 24-32k products,
 * which SQLite counts in ~147 ms (~0.3 us a pair). Here the same answer is a few bitwise ANDs
 * of 32-bit words and one pass over each match set's value lists in typed arrays: about a
 * millisecond; and a set mostly inside one whose counts are known is counted by its complement
 * (FacetIndex.count; figures in README, "Browse").
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

/**
 * A set of products. `keep` names it when its counts of every value are worth keeping between
 * answers: a filter of one value, or a collection, holding more than 1/32 of the product ids.
 * So fewer than 32 sets are kept per value a product can have (and per collection it can be
 * in), each 4 bytes per facet value (the generated 100,000-product catalog: 138 values, 0.5 KiB a set).
 */
export interface ProductSet {
  bits: Uint32Array;
  keep?: string;
}

/** One active filter: the products it admits, and the facet it leaves out of its own counts (null for q). */
export interface Group extends ProductSet {
  facet: string | null;
}

/**
 * A product whose values live stock has changed (VersionIndex's live view): the value ids its
 * file had and live stock takes away (`minus`: `available` true, an option value of the variants
 * sold out) and those live stock gives it (`plus`). Every count below is made from the file's
 * columns and then, for the changed products in the set counted, moved from `minus` to `plus`:
 * a delta over the few changed products, never a recount.
 */
export interface StockChange {
  id: number;
  minus: readonly number[];
  plus: readonly number[];
}

/** A set whose counts of every value are known: counting a subset of it may count its other products instead. */
interface Known {
  bits: Uint32Array;
  n: number;
  counts: Uint32Array;
}
/**
 * One facet's values per product. A facet with at most one value per product (vendor, product
 * type, available) is a column of value ids (-1 for none); any other (tags, an option) lists
 * each product's value ids: `ids[starts[p] .. starts[p + 1]]`.
 */
export type ColumnArrays = { one: Int32Array } | { starts: Uint32Array; ids: Uint16Array | Uint32Array };
type Column = ColumnArrays & {
  /** The facet's value ids, each with its products. */
  postings: readonly [vid: number, ids: Uint32Array][];
  /** (product, value) pairs in all: what counting from the postings costs. */
  pairs: number;
};

/** The facet's column, from its values' postings (or as a snapshot carries it: `built`). */
function column(
  size: number,
  values: number,
  postings: readonly [vid: number, ids: Uint32Array][],
  built?: ColumnArrays,
): Column {
  const pairs = postings.reduce((n, [, ids]) => n + ids.length, 0);
  if (built)
    return { ...("one" in built ? { one: built.one } : { starts: built.starts, ids: built.ids }), postings, pairs };
  const starts = new Uint32Array(size + 1);
  for (const [, ids] of postings)
    for (let i = 0; i < ids.length; i++)
      starts[(ids[i] as number) + 1] = (starts[(ids[i] as number) + 1] as number) + 1;
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
 * Adds to `counts[v]` (or, with `sign` -1, takes from it), for every value `v` of `column`, how
 * many products of `bits` (`n` of them) have it. Whichever visits less: each product's values
 * (a facet most of the products have), or each value's products tested against the bitmap (a
 * rare facet).
 */
function tally(column: Column, bits: Uint32Array, n: number, counts: Uint32Array, sign: 1 | -1 = 1): void {
  if (column.pairs < perProduct(column, n)) {
    for (const [vid, ids] of column.postings) {
      let found = 0;
      for (let i = 0; i < ids.length; i++) {
        const p = ids[i] as number;
        found += ((bits[p >>> 5] as number) >>> (p & 31)) & 1;
      }
      counts[vid] = (counts[vid] as number) + sign * found;
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
        if (v >= 0) counts[v] = (counts[v] as number) + sign;
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
        counts[v] = (counts[v] as number) + sign;
      }
      word ^= low;
    }
  }
}

/** Of `known` sets holding a set of `n` products, the one with the fewest others, if fewer than `limit`. */
function cheapest(known: readonly Known[], n: number, limit: number): Known | null {
  let best: Known | null = null;
  for (const k of known) if (k.n - n < (best ? best.n - n : limit)) best = k;
  return best;
}

/** What a change batch's view of an index counts with (FacetIndex.view). */
interface FacetView {
  base: FacetIndex;
  catalog: Known;
  values: readonly FacetValueRow[];
  options: readonly string[];
}

export class FacetIndex {
  readonly #size: number;
  readonly #values: readonly FacetValueRow[];
  readonly #options: readonly string[];
  readonly #prices: Float64Array;
  /** The catalog's products by price, lowest first. */
  readonly #byPrice: Uint32Array;
  /** Facet name (`vendor`, `o:size`, ...) -> its values per product, and its value ids' range. */
  readonly #columns: Map<string, Column & { from: number; to: number }>;
  /** Every value of every facet per product: one pass counts all facets over a match set. */
  readonly #every: Column;
  /** The whole catalog, its counts the postings' lengths. */
  readonly #catalog: Known;
  /** Counts of kept sets (ProductSet.keep), made on first use. */
  readonly #kept = new Map<string, Known>();
  /**
   * Bitmaps a count works in, made once and reused by every count (one answer at a time; each
   * is written whole before it is read): making a 100k-product bitmap costs 20-30 µs in V8.
   */
  readonly #pool: Uint32Array[] = [];
  #used = 0;

  /**
   * `catalog`: every product of the version; `prices` by product (NaN for an id no product has);
   * `byPrice`: the catalog's products by price, lowest first. Value ids of one facet are one range.
   * `view`: made by `view()` only.
   */
  constructor(
    size: number,
    values: readonly FacetValueRow[],
    postings: readonly Uint32Array[],
    prices: Float64Array,
    byPrice: Uint32Array,
    options: readonly string[],
    catalog: Uint32Array,
    built?: { columns: ReadonlyMap<string, ColumnArrays>; every: ColumnArrays },
    view?: FacetView,
  ) {
    this.#size = size;
    this.#values = view?.values ?? values;
    this.#options = view?.options ?? options;
    this.#prices = prices;
    this.#byPrice = byPrice;
    if (view) {
      this.#columns = view.base.#columns;
      this.#every = view.base.#every;
      this.#catalog = view.catalog;
      return;
    }
    this.#columns = new Map();
    const byFacet = new Map<string, [number, Uint32Array][]>();
    values.forEach((v, id) => {
      const list = byFacet.get(v.f) ?? [];
      list.push([id, postings[id] ?? new Uint32Array(0)]);
      byFacet.set(v.f, list);
    });
    for (const [facet, list] of byFacet) {
      this.#columns.set(facet, {
        ...column(size, values.length, list, built?.columns.get(facet)),
        from: list[0]?.[0] ?? 0,
        to: (list.at(-1)?.[0] ?? -1) + 1,
      });
    }
    this.#every = column(size, values.length, [...byFacet.values()].flat(), built?.every);
    this.#catalog = {
      bits: catalog,
      n: byPrice.length,
      counts: Uint32Array.from(values, (_, v) => postings[v]?.length ?? 0),
    };
  }

  /**
   * This index as a change batch's catalog counts it (issue 45): `catalog` its products still in
   * the catalog (`removed`: those a batch deleted or replaced), `values` the same value ids with
   * the catalog's spellings, `options` the catalog's option names. The columns are shared; the
   * catalog's counts are this index's less the products removed, and kept counts start afresh.
   */
  view(
    catalog: Uint32Array,
    removed: readonly number[],
    values: readonly FacetValueRow[],
    options: readonly string[],
  ): FacetIndex {
    const counts = this.#catalog.counts.slice();
    for (const p of removed) for (const v of this.valuesOf(p)) counts[v] = (counts[v] as number) - 1;
    const known: Known = { bits: catalog, n: popcount(catalog), counts };
    return new FacetIndex(this.#size, [], [], this.#prices, this.#byPrice, [], catalog, undefined, {
      base: this,
      catalog: known,
      values,
      options,
    });
  }

  /** The columns' arrays (what a snapshot carries so a new engine need not make them). */
  columnArrays(): { columns: Map<string, ColumnArrays>; every: ColumnArrays } {
    const arrays = (c: Column): ColumnArrays => ("one" in c ? { one: c.one } : { starts: c.starts, ids: c.ids });
    return { columns: new Map([...this.#columns].map(([facet, c]) => [facet, arrays(c)])), every: arrays(this.#every) };
  }

  /** The value ids product `p` has in the version's file (every facet). */
  valuesOf(p: number): number[] {
    const every = this.#every;
    if ("one" in every) {
      const v = every.one[p] ?? -1;
      return v >= 0 ? [v] : [];
    }
    return Array.from(every.ids.subarray(every.starts[p] as number, every.starts[p + 1] as number));
  }

  /** Moves the counts of values `from` .. `to` over `bits` from the file's to live stock's (StockChange). */
  #live(bits: Uint32Array, from: number, to: number, counts: Uint32Array, changes: readonly StockChange[]): void {
    for (const c of changes) {
      if (!has(bits, c.id)) continue;
      for (const v of c.minus) if (v >= from && v < to) counts[v] = (counts[v] as number) - 1;
      for (const v of c.plus) if (v >= from && v < to) counts[v] = (counts[v] as number) + 1;
    }
  }

  /** Bytes held by the per-facet columns and kept counts (the postings and prices are VersionIndex's). */
  get bytes(): number {
    let n = 0;
    for (const c of [...this.#columns.values(), this.#every])
      n += "one" in c ? c.one.byteLength : c.starts.byteLength + c.ids.byteLength;
    for (const k of [this.#catalog, ...this.#kept.values()]) n += k.counts.byteLength;
    return n;
  }

  /** The price range of `bits` (`n` products): Infinity and -Infinity when empty. */
  #priceRange(bits: Uint32Array, n: number): { min: number; max: number } {
    const prices = this.#prices;
    let min = Infinity;
    let max = -Infinity;
    if (n * 64 > this.#byPrice.length) {
      // Many products: the cheapest and dearest are near the ends of the price order.
      const order = this.#byPrice;
      let i = 0;
      while (!has(bits, order[i] as number)) i++;
      let j = order.length - 1;
      while (!has(bits, order[j] as number)) j--;
      return { min: prices[order[i] as number] as number, max: prices[order[j] as number] as number };
    }
    for (let w = 0; w < bits.length; w++) {
      let word = bits[w] as number;
      while (word !== 0) {
        const low = word & -word;
        const price = prices[(w << 5) | (31 - Math.clz32(low))] as number;
        if (price < min) min = price;
        if (price > max) max = price;
        word ^= low;
      }
    }
    return { min, max };
  }

  /** The next working bitmap of this count (its contents stale: to be written whole). */
  #scratch(): Uint32Array {
    if (this.#used === this.#pool.length) this.#pool.push(bitmap(this.#size));
    return this.#pool[this.#used++] as Uint32Array;
  }

  /** The counts of a kept set, made on first use. */
  #known(set: ProductSet): Known | null {
    if (set.keep === undefined) return null;
    let known = this.#kept.get(set.keep);
    if (!known) {
      const n = popcount(set.bits);
      known = { bits: set.bits, n, counts: new Uint32Array(this.#values.length) };
      tally(this.#every, set.bits, n, known.counts);
      this.#kept.set(set.keep, known);
    }
    return known;
  }

  /**
   * Sets `counts` of `column`'s values (ids `from` .. `to`) over `bits` (`n` products, all in
   * `known`) to `known`'s counts minus those of its products outside `bits`.
   */
  #fromKnown(
    column: Column,
    from: number,
    to: number,
    bits: Uint32Array,
    n: number,
    known: Known,
    counts: Uint32Array,
  ): void {
    counts.set(known.counts.subarray(from, to), from);
    if (known.n > n) tally(column, andNot(this.#scratch(), known.bits, bits), known.n - n, counts, -1);
  }

  /**
   * The facet counts of a query whose active filters are `groups`, over the products of `base`
   * (the catalog, or a collection's); slices.ts facetsAnswer writes the answer from them.
   *
   * Every facet is counted over the matches of all filters (`all`) in one pass over their
   * values; a filtered facet's count is over the matches of every other filter (`except`).
   * Either is counted the cheapest of three ways: directly; from the counts of a known set
   * holding it (the catalog, the base or a one-value filter, see ProductSet.keep) minus those of
   * the set's other products; or, for `except`, which holds `all`, as `all`'s counts plus those
   * of the products its own filter turns away. So no answer counts more than half the catalog's
   * products per set, and a broad filter (available=true: 95% of the products) costs like a
   * narrow one. The bench's three filters at 100,000 products: ~12,000 matches and ~13,000
   * turned away per filter, instead of recounting 24-32,000 per filter.
   */
  count(base: ProductSet, groups: readonly Group[], changes: readonly StockChange[] = []): FacetCounts {
    this.#used = 0;
    const counts = new Uint32Array(this.#values.length);
    // `all`, and for each filter the AND of every other one, from ANDs of prefixes and suffixes.
    const prefix: Uint32Array[] = [base.bits];
    for (const g of groups) prefix.push(and(this.#scratch(), prefix.at(-1) as Uint32Array, g.bits));
    const all = prefix.at(-1) as Uint32Array;
    const n = popcount(all);
    const range = this.#priceRange(all, n);
    const scope = [this.#catalog, this.#known(base)];
    const supersets = (skip: Group | null) =>
      [...scope, ...groups.map((g) => (g === skip ? null : this.#known(g)))].filter((k): k is Known => k !== null);
    const known = cheapest(supersets(null), n, n);
    if (known) this.#fromKnown(this.#every, 0, counts.length, all, n, known, counts);
    else tally(this.#every, all, n, counts);
    if (changes.length > 0) this.#live(all, 0, counts.length, counts, changes);
    let suffix: Uint32Array | null = null;
    for (let i = groups.length - 1; i >= 0; i--) {
      const g = groups[i] as Group;
      if (g.facet !== null) {
        // Matched by every other filter.
        const except = suffix ? and(this.#scratch(), prefix[i] as Uint32Array, suffix) : (prefix[i] as Uint32Array);
        const m = popcount(except);
        if (g.facet === "price") {
          const own = this.#priceRange(except, m);
          range.min = Math.min(range.min, own.min);
          range.max = Math.max(range.max, own.max);
        } else {
          const column = this.#columns.get(g.facet);
          if (column) {
            const known = cheapest(supersets(g), m, m - n);
            if (known) {
              this.#fromKnown(column, column.from, column.to, except, m, known, counts);
              if (changes.length > 0) this.#live(except, column.from, column.to, counts, changes);
            } else {
              const turned = andNot(this.#scratch(), except, g.bits);
              tally(column, turned, m - n, counts);
              if (changes.length > 0) this.#live(turned, column.from, column.to, counts, changes);
            }
          }
        }
      }
      suffix = suffix ? and(this.#scratch(), suffix, g.bits) : g.bits;
    }
    return { n, min: range.min, max: range.max, counted: this.#counted(counts), options: this.#options };
  }

  /** The values of `counts` above 0, by facet, each with its display value. */
  #counted(counts: Uint32Array): Record<string, CountedValue[]> {
    const counted: Record<string, CountedValue[]> = {};
    counts.forEach((count, id) => {
      if (count === 0) return;
      const v = this.#values[id] as FacetValueRow;
      const list = counted[v.f];
      if (list) list.push({ key: v.k, value: v.d, count });
      else counted[v.f] = [{ key: v.k, value: v.d, count }];
    });
    return counted;
  }
}
