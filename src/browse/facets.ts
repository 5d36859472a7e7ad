import { fromMinor, type Money } from "../money.ts";
import { compareCodePoints } from "./text.ts";

/**
 * The facets answer, from counted values (FacetIndex counts them) to JSON text: which values a
 * facet shows, in what order, and the envelope.
 */

/** At most this many values per facet; selected values are always among them. */
export const MAX_FACET_VALUES = 100;

export interface CountedValue {
  key: string;
  /** The value as the catalog first spells it (or as the request gave it, when absent). */
  value: string;
  count: number;
}

export interface FacetValue {
  value: string;
  count: number;
  selected: boolean;
}

/** `type` tells a typed client which shape it holds: a list of values, or the price range. */
export type Facet =
  | { name: string; type: "values"; values: FacetValue[] }
  | { name: "price"; type: "range"; min: Money | null; max: Money | null };

/** By count, most first, then by value (code point order). */
export function byCountThenValue(a: { count: number; value: string }, b: { count: number; value: string }): number {
  return b.count - a.count || compareCodePoints(a.value, b.value);
}

/**
 * The values a facet shows: every selected key (a count of 0 when nothing matches it), then the
 * best of the rest up to MAX_FACET_VALUES in all, ordered by count then value. `counted` may hold
 * more than the cut; values with a count of 0 are shown only when selected.
 */
export function facetValues(
  counted: readonly CountedValue[],
  selected: readonly string[] = [],
  given: (key: string) => string = (k) => k,
): FacetValue[] {
  const chosen = new Set(selected);
  const byKey = new Map(counted.map((c) => [c.key, c]));
  const shown: FacetValue[] = selected.map((key) => ({
    value: byKey.get(key)?.value ?? given(key),
    count: byKey.get(key)?.count ?? 0,
    selected: true,
  }));
  const rest = counted.filter((c) => !chosen.has(c.key) && c.count > 0).sort(byCountThenValue);
  for (const c of rest.slice(0, Math.max(0, MAX_FACET_VALUES - shown.length)))
    shown.push({ value: c.value, count: c.count, selected: false });
  return shown.sort(byCountThenValue);
}

/** The price facet in the catalog's currency (minor units in, Money out). */
export function priceFacet(min: number | null, max: number | null, currency?: string): Facet {
  return {
    name: "price",
    type: "range",
    min: min === null ? null : fromMinor(min, currency),
    max: max === null ? null : fromMinor(max, currency),
  };
}

export function facetsBody(count: number, facets: readonly Facet[]): string {
  return JSON.stringify({ object: "facets", count, facets });
}
