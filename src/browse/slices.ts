import { collectionBody, listBody } from "../catalog/render.ts";
import { type CountedValue, type Facet, facetValues, facetsBody, priceFacet } from "./facets.ts";
import { optionFacet } from "./layout.ts";
import { type BrowseFilters, type BrowsePageQuery, hasFilters } from "./query.ts";
import { compareCodePoints } from "./text.ts";

/**
 * What one index answers before the answer is written: a page's first matches with where each
 * stands in the sort, and a query's facet counts. An unsharded version writes its answer from
 * its one index's slice; a sharded one (shards.ts) from every shard's, merged. Both go through
 * the same two functions here, so a sharded answer cannot be written differently.
 */

/**
 * Where a product stands in a sort, comparable across shards: pages run in (key, rank)
 * ascending order (backwards: descending). `key` is 0 in catalog order, the relevance key
 * (text-index.ts: strict matches, then second-chance ones; then the highest score) under relevance, and the sort's key (price,
 * title rank, created) negated for a descending sort (a title rank is 1 or more, so its sign says
 * the direction); `rank` is the product's place in scope order: its catalog position, or its
 * place in the collection.
 */
export interface Position {
  key: number;
  rank: number;
  /**
   * In a title sort: the product's folded title. A title's rank is counted per index (a change
   * batch's index counts its own), so indexes merge by the title itself, then rank.
   */
  text?: string;
}

export function comparePositions(a: Position, b: Position): number {
  // Equal titles tie whatever rank each index counted for them: then catalog order.
  if (a.text !== undefined && b.text !== undefined)
    return (a.key < 0 ? -1 : 1) * compareCodePoints(a.text, b.text) || a.rank - b.rank;
  return a.key - b.key || a.rank - b.rank;
}

/** A page's matches from one index: up to `limit + 1` after the cursor, in the page's direction. */
export interface PageSlice {
  /** Matches of the query in this index. */
  count: number;
  /** The list's `count` without filters: the catalog's products, or the collection's header count. */
  total: number;
  /** The collection's header, in collection scope. */
  collection: { title: string; n: number } | null;
  /** The matches' positions; their list items (JSON text) at the same places, for as many as were rendered. */
  items: string[];
  positions: Position[];
  /** The cursor's position, when the cursor is among this index's matches. */
  at: Position | null;
  /** When q took the second chance (text.ts SECOND_CHANCE_BELOW): how many of `count` match every word. */
  strict?: number;
}

/**
 * The page of `slices` (one per shard, or one alone): their matches merged in the page's
 * direction, the first `limit` shown, as the list envelope (or a collection wrapping it).
 */
export function pageBody(slices: readonly PageSlice[], collection: string | undefined, q: BrowsePageQuery): string {
  const backwards = q.ending_before !== undefined;
  const entries: [Position, string | undefined][] = [];
  let count = 0;
  let strict: number | undefined;
  for (const s of slices) {
    count += s.count;
    if (s.strict !== undefined) strict = (strict ?? 0) + s.strict;
    s.positions.forEach((position, i) => entries.push([position, s.items[i]]));
  }
  // One slice is in order already; several are merged.
  if (slices.length > 1)
    entries.sort(backwards ? (a, b) => comparePositions(b[0], a[0]) : (a, b) => comparePositions(a[0], b[0]));
  const shown = entries.slice(0, q.limit);
  if (backwards) shown.reverse();
  const first = slices[0] as PageSlice;
  const list = listBody(
    hasFilters(q) ? count : first.total,
    shown.map(([, item]) => item as string),
    entries.length > q.limit,
    strict,
  );
  const header = first.collection;
  return collection === undefined || !header ? list : collectionBody(collection, header.title, header.n, list);
}

/** A query's facet counts from one index: values with a count above 0, by facet. */
export interface FacetCounts {
  /** Matches of the whole query. */
  n: number;
  /** Price range in minor units of the matches (of every filter but price); Infinity / -Infinity when none. */
  min: number;
  max: number;
  counted: Record<string, CountedValue[]>;
  /** Option API names of the catalog, in order of first appearance. */
  options: readonly string[];
}

/** The facets answer of `parts` (one per shard, or one alone): counts summed, price ranges joined. */
export function facetsAnswer(parts: readonly FacetCounts[], filters: BrowseFilters): string {
  const first = parts[0] as FacetCounts;
  let counted = first.counted;
  let n = first.n;
  let min = first.min;
  let max = first.max;
  if (parts.length > 1) {
    const sums = new Map<string, Map<string, CountedValue>>();
    n = 0;
    for (const part of parts) {
      n += part.n;
      min = Math.min(min, part.min);
      max = Math.max(max, part.max);
      for (const [facet, values] of Object.entries(part.counted)) {
        const byKey = sums.get(facet) ?? new Map<string, CountedValue>();
        sums.set(facet, byKey);
        for (const v of values) {
          const sum = byKey.get(v.key);
          if (sum) sum.count += v.count;
          else byKey.set(v.key, { ...v });
        }
      }
    }
    counted = Object.fromEntries([...sums].map(([facet, byKey]) => [facet, [...byKey.values()]]));
  }
  const given = (facet: string) => (key: string) => filters.given.get(`${facet}\u0000${key}`) ?? key;
  const facets: Facet[] = OWN_FACETS.map((name) => {
    const selected =
      name === "available" ? (filters.available === undefined ? [] : [String(filters.available)]) : filters[name];
    return { name, type: "values" as const, values: facetValues(counted[name] ?? [], selected, given(name)) };
  });
  for (const name of first.options) {
    const keys = filters.options.find(([o]) => o === name)?.[1];
    facets.push({
      name: `option.${name}`,
      type: "values",
      values: facetValues(counted[optionFacet(name)] ?? [], keys, given(`option.${name}`)),
    });
  }
  facets.push(min === Infinity ? priceFacet(null, null) : priceFacet(min, max, filters.currency));
  return facetsBody(n, facets);
}

/** The value facets every catalog has, in the answer's order (option facets follow). */
const OWN_FACETS = ["vendor", "product_type", "tag", "available"] as const;
