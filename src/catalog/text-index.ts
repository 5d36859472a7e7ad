import { bitmap, setAll } from "./bitmap.ts";

/**
 * `q` over one catalog version, in memory: every search word of the catalog (browse-text.ts
 * searchWords: folded, letters and digits), sorted, each with the products having it in the
 * title and in the rest (vendor, type, tags, option values, SKUs). A query word matches a
 * word exactly, the last one as a prefix (`cott` finds `cotton`); the sorted words make a
 * prefix one contiguous range, found by binary search.
 */

/** By word: its products, ascending, at `ids[starts[w] .. starts[w + 1]]`. */
export interface Postings {
  starts: Uint32Array;
  ids: Uint32Array;
}

/** Every search word with its products, per column (what browse-source.ts reads from `w`). */
export interface WordPostings {
  /** Sorted in code unit order, without repeats. */
  words: string[];
  /** The products with each word in the title, and in the other fields (either may have none). */
  title: Postings;
  rest: Postings;
}

/** What q matches: every word in any field (`all`), and per query word its title matches (relevance). */
export interface TextMatches {
  all: Uint32Array;
  title: Uint32Array[];
}

/** The first index of `words` whose word is not below `word`. */
function lowerBound(words: readonly string[], word: string): number {
  let lo = 0;
  let hi = words.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((words[mid] as string) < word) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class TextIndex {
  readonly #size: number;
  readonly #postings: WordPostings;

  constructor(size: number, postings: WordPostings) {
    this.#size = size;
    this.#postings = postings;
  }

  get bytes(): number {
    const { title, rest } = this.#postings;
    return title.starts.byteLength + title.ids.byteLength + rest.starts.byteLength + rest.ids.byteLength;
  }

  /** The products `words` match: each word (the last as a prefix) in some field. */
  search(words: readonly string[]): TextMatches {
    const { words: all, title, rest } = this.#postings;
    let matches: Uint32Array | null = null;
    const titles: Uint32Array[] = [];
    words.forEach((word, i) => {
      const prefix = i === words.length - 1;
      const any = bitmap(this.#size);
      const inTitle = bitmap(this.#size);
      for (let at = lowerBound(all, word); at < all.length; at++) {
        const found = all[at] as string;
        if (prefix ? !found.startsWith(word) : found !== word) break;
        setAll(inTitle, title.ids.subarray(title.starts[at], title.starts[at + 1]));
        setAll(any, rest.ids.subarray(rest.starts[at], rest.starts[at + 1]));
      }
      for (let w = 0; w < any.length; w++) any[w] = (any[w] as number) | (inTitle[w] as number);
      if (matches === null) matches = any;
      else for (let w = 0; w < any.length; w++) matches[w] = (matches[w] as number) & (any[w] as number);
      titles.push(inTitle);
    });
    return { all: matches ?? bitmap(this.#size), title: titles };
  }
}
