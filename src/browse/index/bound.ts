/**
 * The binary search every sorted list of the browse engine uses: the first place of [lo, hi)
 * where `below(place)` is false, for a `below` that holds on a prefix of the range and nowhere
 * after it (hi when it holds everywhere). The posting lists' own searches (text-index.ts find,
 * the galloping intersection) stay written out: they run once per posting.
 */
export function firstNotBelow(lo: number, hi: number, below: (place: number) => boolean): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (below(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first place of ascending `list` not below `value` (list.length when every entry is). */
export function lowerBound<T extends number | string>(list: ArrayLike<T>, value: T): number {
  return firstNotBelow(0, list.length, (at) => (list[at] as T) < value);
}
