import { and, bitmap, has, members, setAll } from "./bitmap.ts";
import { lowerBound } from "./bound.ts";
import {
  idfScore,
  inflections,
  MATCH,
  mayWiden,
  packedWeight,
  type QueryWord,
  SECOND_CHANCE_BELOW,
  typoBudget,
  typoFactor,
} from "../text.ts";

/**
 * `q` over one catalog version, in memory: every search word of the catalog (browse-text.ts
 * searchWords: folded, letters and digits; synonyms added and stop words left out at publish),
 * sorted, each with the products having it in any field and its weight in each (BM25F-like,
 * text.ts wordWeight). A query word matches a word exactly, in another form (text.ts
 * inflections: plural and singular, British and American spellings), the last one also as a
 * prefix (`cott` finds `cotton`; the sorted words make a prefix one contiguous range, found by
 * binary search; a one-character last word only when it is the whole q), and a word of 5+
 * characters also the words within one edit of it (8+: two; typoBudget), found by scanning the
 * words of near lengths whose letters nearly agree. A quoted word, or every word of a SKU-shaped
 * q, matches only itself. Stop words are left out of q unless q has nothing else.
 *
 * Relevance (text.ts): per query word its idf (the typed word's, else its commonest match's)
 * times the best weight x match factor among the words it matched in the product, summed; a
 * second-chance match (all words but one: `partial`) ranks below every strict one. The caller
 * breaks ties by scope order.
 */

/** Every search word with its products and weights (what browse-source.ts reads from `x` and `z`). */
export interface WordPostings {
  /** Sorted in code unit order, without repeats. */
  words: string[];
  /** Word w's products, ascending, at `ids[starts[w] .. starts[w + 1]]`, with its weight in each at the same places of `weights`. */
  starts: Uint32Array;
  ids: Uint32Array;
  /**
   * `packed` (issue 45): what each weight is made of (text.ts packWeight), the weight made when a
   * query is scored, with the averages of the catalog answered. Else the weight itself (16 bits,
   * text.ts wordWeight; an index published before 2026-11-27 holds bytes).
   */
  weights: Uint32Array | Uint16Array | Uint8Array;
  packed?: boolean;
  /** The catalog's stop words (folded): never indexed, left out of q. */
  stop: string[];
}

/**
 * What scoring needs beyond the postings: the catalog's products (n, for idf) and, with packed
 * weights, the catalog's sums of title and description lengths (for their averages) and this
 * index's products' own lengths. A shard or a change batch's index answers with the catalog's,
 * not its own.
 */
export interface Scoring {
  n: number;
  title?: number;
  description?: number;
  lengths?: { title: Uint16Array; description: Uint16Array };
}

/** A word of the index a query word matched, and how much of its weight the match keeps (text.ts MATCH, percent). */
export interface Term {
  at: number;
  factor: number;
}

/**
 * What the catalog says of a query word, for its idf: the products having the typed word itself
 * (0: no word of the catalog), and the most any word it matched has (0: it matched none). A
 * shard holds only its products' words, so a sharded version adds up every shard's counts (word
 * by word: TermCounts) before it answers (shards.ts); a whole index knows them itself.
 */
export interface WordStats {
  own: number;
  common: number;
}

/**
 * What a q's answer depends on beyond one shard: each kept word's WordStats and whether the
 * second chance is taken (strict matches in the scope below SECOND_CHANCE_BELOW).
 */
export interface TextPlan {
  relax: boolean;
  words: WordStats[];
}

/**
 * What q matches: every query word (stop words aside) in some field, as ascending ids when they
 * ended a short list (`list`), else as a bitmap (`all`); per query word, the index words it matched.
 */
export interface TextMatches {
  /** Ascending ids (possibly a view of the postings: never written), or null when `all` holds them. */
  list: Uint32Array | null;
  /** TextIndex's own bitmap, reused: valid until its next search (an engine answers one request at a time). */
  all: Uint32Array | null;
  terms: Term[][];
  /** The kept words (stop words out), folded. */
  kept: string[];
  /** Per kept word: its idf (from `stats`), and what the catalog says of it. */
  idf: number[];
  stats: WordStats[];
  /** Whether a kept word is exact (quoted, or q is SKU-shaped). */
  exact: boolean;
  /** Whether the second chance may apply (text.ts mayWiden). */
  widenable: boolean;
}

/**
 * Which characters a word has, hashed into 32 bits: k edits change at most 2k bits. Letters a-z
 * have a bit each and digits share the other six, so a word of letters is not taken for a number.
 */
function letterMask(word: string): number {
  let m = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    m |= 1 << (c >= 97 && c <= 122 ? c - 97 : c >= 48 && c <= 57 ? 26 + (c % 6) : c % 32);
  }
  return m;
}

/** How many code units of `word` are not ASCII digits: the edits it is at least away from a number. */
function nonDigits(word: string): number {
  let n = 0;
  for (let i = 0; i < word.length; i++) {
    const c = word.charCodeAt(i);
    if (c < 48 || c > 57) n++;
  }
  return n;
}

function bitCount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/** Longest word length the typo scan groups by; longer words are in the last group. */
const MAX_LENGTH = 63;

/** The optimal string alignment distance of a and b (code units) if at most k, else k + 1. */
export function editsWithin(a: string, b: string, k: number): number {
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > k) return k + 1;
  let before = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  let row = new Array<number>(m + 1).fill(0);
  for (let i = 1; i <= n; i++) {
    row[0] = i;
    let least = i;
    for (let j = 1; j <= m; j++) {
      const cost = a.charCodeAt(i - 1) === b.charCodeAt(j - 1) ? 0 : 1;
      let d = Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a.charCodeAt(i - 1) === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === b.charCodeAt(j - 1))
        d = Math.min(d, (before[j - 2] as number) + 1);
      row[j] = d;
      if (d < least) least = d;
    }
    if (least > k) return k + 1;
    [before, prev, row] = [prev, row, before];
  }
  return Math.min(prev[m] as number, k + 1);
}

/** The ids in both ascending lists, ascending; stepping through the longer one by galloping when it is much longer. */
function intersect(a: Uint32Array, b: Uint32Array): Uint32Array {
  const out = new Uint32Array(Math.min(a.length, b.length));
  let n = 0;
  let j = 0;
  for (let i = 0; i < a.length && j < b.length; i++) {
    const id = a[i] as number;
    if ((b[j] as number) < id) {
      // Gallop: double the step until past id, then binary search back.
      let step = 1;
      while (j + step < b.length && (b[j + step] as number) < id) step *= 2;
      let lo = j + (step >> 1);
      let hi = Math.min(j + step, b.length);
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((b[mid] as number) < id) lo = mid + 1;
        else hi = mid;
      }
      j = lo;
    }
    if (j < b.length && b[j] === id) {
      out[n++] = id;
      j++;
    }
  }
  return out.subarray(0, n);
}

export class TextIndex {
  readonly #size: number;
  readonly #postings: WordPostings;
  readonly #stop: Set<string>;
  readonly #scoring: Scoring;
  /** With packed weights: the catalog's average title and description lengths. */
  readonly #averages: [title: number, description: number];
  /** By word: its letters (letterMask). */
  readonly #masks: Uint32Array;
  /**
   * Word indexes by length: those of length l at `#byLength[#lengths[l] .. #lengths[l + 1]]`,
   * numbers (ASCII digits only) last, from `#numbers[l]`: a query word with more other
   * characters than its typo budget skips them (a catalog's SKUs and handles hold most of its words).
   */
  readonly #byLength: Uint32Array;
  readonly #lengths: Uint32Array;
  readonly #numbers: Uint32Array;
  /** By product: its place among the ids being scored, -1 otherwise (reset after each use). */
  readonly #slot: Int32Array;
  /**
   * Working memory made once and reused: search's matches and a word's products while it
   * intersects, relevance's per-match arrays (grown to the most matches scored). Making a large
   * typed array costs far more than clearing one: 20-30 µs for a 100k bitmap in Node 24, more
   * than a whole SKU search.
   */
  readonly #all: Uint32Array;
  readonly #any: Uint32Array;
  /** The second chance's: each word's products, and the products matching all but one (partial). */
  #words: Uint32Array[] = [];
  readonly #partial: Uint32Array;
  #scored = { best: new Float64Array(0), key: new Float64Array(0) };

  /**
   * A view's products a change batch took out of the catalog (a bitmap; null: none), and by word
   * index how many of them have the word, counted on the word's first use: a view is made per
   * version and root shard, and counting every word up front cost a pass over all the postings.
   */
  readonly #removed: Uint32Array | null;
  readonly #removedDf = new Map<number, number>();

  /** `view`: made by `view()` only. */
  constructor(
    size: number,
    postings: WordPostings,
    scoring: Scoring,
    view?: { base: TextIndex; removed: Uint32Array | null },
  ) {
    this.#size = size;
    this.#postings = postings;
    this.#stop = view ? view.base.#stop : new Set(postings.stop);
    this.#scoring = scoring;
    const n = Math.max(1, scoring.n);
    this.#averages = [(scoring.title ?? 0) / n, (scoring.description ?? 0) / n];
    this.#removed = view?.removed ?? null;
    if (view) {
      const base = view.base;
      this.#masks = base.#masks;
      this.#byLength = base.#byLength;
      this.#lengths = base.#lengths;
      this.#numbers = base.#numbers;
      this.#slot = base.#slot;
      this.#all = base.#all;
      this.#any = base.#any;
      this.#partial = base.#partial;
      return;
    }
    const { words } = postings;
    this.#masks = Uint32Array.from(words, letterMask);
    const lengthOf = (w: number) => Math.min(MAX_LENGTH, (words[w] as string).length);
    this.#lengths = new Uint32Array(MAX_LENGTH + 2);
    for (let w = 0; w < words.length; w++)
      this.#lengths[lengthOf(w) + 1] = (this.#lengths[lengthOf(w) + 1] as number) + 1;
    for (let l = 1; l < this.#lengths.length; l++)
      this.#lengths[l] = (this.#lengths[l] as number) + (this.#lengths[l - 1] as number);
    this.#byLength = new Uint32Array(words.length);
    const number = (w: number) => nonDigits(words[w] as string) === 0;
    const next = this.#lengths.slice();
    for (const numbers of [false, true])
      for (let w = 0; w < words.length; w++) {
        if (number(w) !== numbers) continue;
        const l = lengthOf(w);
        this.#byLength[next[l] as number] = w;
        next[l] = (next[l] as number) + 1;
      }
    this.#numbers = new Uint32Array(MAX_LENGTH + 1);
    for (let l = 0; l <= MAX_LENGTH; l++) {
      let at = this.#lengths[l] as number;
      while (at < (this.#lengths[l + 1] as number) && !number(this.#byLength[at] as number)) at++;
      this.#numbers[l] = at;
    }
    this.#slot = new Int32Array(size).fill(-1);
    this.#all = bitmap(size);
    this.#any = bitmap(size);
    this.#partial = bitmap(size);
  }

  get bytes(): number {
    const p = this.#postings;
    const lengths = this.#scoring.lengths;
    return (
      p.starts.byteLength +
      p.ids.byteLength +
      p.weights.byteLength +
      (lengths ? lengths.title.byteLength + lengths.description.byteLength : 0) +
      this.#masks.byteLength +
      this.#byLength.byteLength +
      this.#lengths.byteLength +
      this.#numbers.byteLength +
      this.#slot.byteLength +
      this.#all.byteLength +
      this.#any.byteLength +
      this.#partial.byteLength +
      this.#words.reduce((n, w) => n + w.byteLength, 0) +
      this.#scored.key.length * 16
    );
  }

  /**
   * The query words left to match: stop words out, unless q has nothing else; each with whether
   * it is a prefix (the last word of q, not exact; of one character only when it is all of q).
   */
  #kept(words: readonly QueryWord[]): (QueryWord & { prefix: boolean })[] {
    const all = words.map((w, i) => ({ ...w, prefix: i === words.length - 1 && !w.exact }));
    const some = all.filter((w) => !this.#stop.has(w.word));
    const kept = some.length > 0 ? some : all;
    for (const w of kept) if (w.prefix && kept.length > 1 && [...w.word].length === 1) w.prefix = false;
    return kept;
  }

  /**
   * The index words `q` matches, each with its factor (the best way it was reached): itself, its
   * other forms, its completions when a prefix, the words within its typo budget; and those of
   * `q.also` (a hyphenated q written together) as a last word's.
   */
  #terms(q: QueryWord & { prefix: boolean }): Term[] {
    const found = new Map<number, number>();
    if (q.also === undefined) this.#termsOf(q, found);
    else {
      // A word of a hyphenated q (`shirt` of `t-shirt`) matches by itself but scores nothing:
      // the q scores as written together (`tshirt`), so both spellings rank alike.
      const at = lowerBound(this.#postings.words, q.word);
      if (this.#postings.words[at] === q.word) found.set(at, MATCH.part);
      this.#termsOf({ word: q.also, exact: false, prefix: true }, found);
    }
    return [...found].map(([at, factor]) => ({ at, factor }));
  }

  #termsOf(q: QueryWord & { prefix: boolean }, out: Map<number, number>): void {
    const { words } = this.#postings;
    const add = (at: number, factor: number) => {
      if (factor > (out.get(at) ?? -1)) out.set(at, factor);
    };
    const first = lowerBound(words, q.word);
    let end = first;
    if (q.prefix) while (end < words.length && (words[end] as string).startsWith(q.word)) end++;
    else if (words[first] === q.word) end = first + 1;
    if (words[first] === q.word) add(first, MATCH.exact);
    for (let at = first; at < end; at++) if (words[at] !== q.word) add(at, MATCH.completion);
    if (q.exact) return;
    for (const form of inflections(q.word)) {
      const at = lowerBound(words, form);
      if (words[at] === form) add(at, MATCH.form);
    }
    const k = typoBudget(q.word);
    if (k === 0) return;
    const mask = letterMask(q.word);
    const lo = Math.min(MAX_LENGTH, Math.max(0, q.word.length - k));
    const hi = Math.min(MAX_LENGTH, q.word.length + k);
    const numbers = nonDigits(q.word) <= k;
    for (let l = lo; l <= hi; l++) {
      const to = (numbers ? this.#lengths[l + 1] : this.#numbers[l]) as number;
      for (let i = this.#lengths[l] as number; i < to; i++) {
        const at = this.#byLength[i] as number;
        if ((at >= first && at < end) || bitCount((this.#masks[at] as number) ^ mask) > 2 * k) continue;
        const d = editsWithin(q.word, words[at] as string, k);
        if (d > 0 && d <= k) add(at, typoFactor(d));
      }
    }
  }

  /**
   * This index as a change batch's catalog scores it (issue 45): with the catalog's n and length
   * sums, and without the products the batches took out (`removed`, a bitmap: each word's count of
   * them is made on the word's first use, #df). Every array is shared, the working memory too (one answer at a time).
   */
  view(scoring: Scoring, removed: Uint32Array): TextIndex {
    const any = removed.some((w) => w !== 0);
    return new TextIndex(
      this.#size,
      this.#postings,
      { ...this.#scoring, ...scoring },
      {
        base: this,
        removed: any ? removed : null,
      },
    );
  }

  /** A word's products in this index (the catalog's only for a whole index), those a change batch took out aside. */
  #df(at: number): number {
    const { starts, ids } = this.#postings;
    const from = starts[at] as number;
    const end = starts[at + 1] as number;
    const removed = this.#removed;
    if (!removed) return end - from;
    let gone = this.#removedDf.get(at);
    if (gone === undefined) {
      gone = 0;
      for (let j = from; j < end; j++) gone += has(removed, ids[j] as number) ? 1 : 0;
      this.#removedDf.set(at, gone);
    }
    return end - from - gone;
  }

  /** The idf a query word scores with (WordStats: the typed word's, else its commonest match's; 0 when it matched nothing). */
  idfOf(stats: WordStats): number {
    const df = stats.own > 0 ? stats.own : stats.common;
    return df > 0 ? idfScore(df, this.#scoring.n) : 0;
  }

  /** The weight of posting `j` (of product `id`): stored, or made from its parts and the catalog's averages. */
  #weight(j: number, id: number): number {
    const w = this.#postings.weights[j] as number;
    const lengths = this.#scoring.lengths;
    if (!this.#postings.packed || !lengths) return w;
    const [title, description] = this.#averages;
    return packedWeight(w, lengths.title[id] as number, lengths.description[id] as number, title, description);
  }

  /**
   * What this index holds of each kept word of q (shards.ts adds every index's up): the products
   * having the typed word (its written-together form for a hyphenated q), and each index word it
   * matched with the products having it.
   */
  counts(words: readonly QueryWord[]): { own: number[]; terms: { word: string; df: number }[][] } {
    const kept = this.#kept(words);
    const own = kept.map((q) => {
      const typed = q.also ?? q.word;
      const at = lowerBound(this.#postings.words, typed);
      return this.#postings.words[at] === typed ? this.#df(at) : 0;
    });
    const terms = kept.map((q) =>
      this.#terms(q).map((t) => ({ word: this.#postings.words[t.at] as string, df: this.#df(t.at) })),
    );
    return { own, terms };
  }

  /** Where product `id` is in word `at`'s postings (binary search), -1 if not there. */
  #find(at: number, id: number): number {
    const { starts, ids } = this.#postings;
    let lo = starts[at] as number;
    let hi = starts[at + 1] as number;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((ids[mid] as number) < id) lo = mid + 1;
      else hi = mid;
    }
    return lo < (starts[at + 1] as number) && ids[lo] === id ? lo : -1;
  }

  /**
   * The products `words` match: each query word (stop words aside) in some field, by itself, a
   * completion or a near spelling. The word with the fewest postings gives the candidates; each
   * other word then keeps those it has, probed by binary search when that costs less than
   * marking its postings in a bitmap (a SKU's rare number next to a size letter on half the
   * catalog). Probed candidates stay a sorted list, not a bitmap walked whole at each word.
   */
  search(words: readonly QueryWord[], plan?: TextPlan): TextMatches {
    const { starts, ids } = this.#postings;
    const kept = this.#kept(words);
    const terms = kept.map((q) => this.#terms(q));
    const stats =
      plan?.words ??
      kept.map((q, i): WordStats => {
        // A hyphenated q's words score as it is written together: that word's idf.
        const typed = q.also ?? q.word;
        const at = lowerBound(this.#postings.words, typed);
        const own = this.#postings.words[at] === typed ? this.#df(at) : 0;
        return { own, common: (terms[i] as Term[]).reduce((most, t) => Math.max(most, this.#df(t.at)), 0) };
      });
    const idf = stats.map((st) => this.idfOf(st));
    const widenable = mayWiden(kept.map((q, i) => ({ ...q, known: (stats[i] as WordStats).common > 0 })));
    const postings = (found: Term[]) =>
      found.reduce((n, t) => n + (starts[t.at + 1] as number) - (starts[t.at] as number), 0);
    const order = terms.map((found, i) => [postings(found), i] as const).sort((a, b) => a[0] - b[0]);
    const of = (t: Term) => ids.subarray(starts[t.at], starts[t.at + 1]);
    const first = terms[order[0]?.[1] ?? 0] ?? [];
    // The candidates: a sorted list (one word's postings, or what probing kept), else a bitmap.
    let list: Uint32Array | null = first.length === 1 ? of(first[0] as Term) : null;
    let matches: Uint32Array | null = null;
    if (!list) {
      matches = this.#all.fill(0);
      for (const t of first) setAll(matches, of(t));
    }
    let count = order[0]?.[0] ?? 0;
    for (const [n, i] of order.slice(1)) {
      const found = terms[i] as Term[];
      if (list && found.length === 1 && list.length * 32 < this.#size) {
        // Few candidates against one word: merge the two sorted lists, no bitmap walked.
        list = intersect(list, of(found[0] as Term));
        count = list.length;
      } else if (count * found.length * 16 < n) {
        const kept: number[] = [];
        for (const id of list ?? members(matches as Uint32Array))
          if (found.some((t) => this.#find(t.at, id) >= 0)) kept.push(id);
        list = Uint32Array.from(kept);
        matches = null;
        count = kept.length;
      } else {
        const any = this.#any.fill(0);
        for (const t of found) setAll(any, of(t));
        if (list) {
          matches = this.#all.fill(0);
          setAll(matches, list);
          list = null;
        }
        and(matches as Uint32Array, matches as Uint32Array, any);
        count = Math.min(count, n);
      }
    }
    const exact = kept.some((q) => q.exact);
    return { list, all: list ? null : matches, kept: kept.map((q) => q.word), exact, terms, idf, stats, widenable };
  }

  /** How many strict matches of `m` are in `scope` (a bitmap). */
  countIn(m: TextMatches, scope: Uint32Array): number {
    if (m.list) {
      let n = 0;
      for (const id of m.list) if (has(scope, id)) n++;
      return n;
    }
    const all = m.all as Uint32Array;
    let n = 0;
    for (let i = 0; i < all.length; i++) n += bitCount((all[i] as number) & (scope[i] as number));
    return n;
  }

  /** Whether the second chance applies to `m` in `scope` (a whole index decides alone; a shard is told: TextPlan). */
  relaxes(m: TextMatches, scope: Uint32Array, plan?: TextPlan): boolean {
    if (!m.widenable) return false;
    return plan ? plan.relax : this.countIn(m, scope) < SECOND_CHANCE_BELOW;
  }

  /**
   * The second chance: the products of `scope` matching all of q's words but one and not every
   * one, as a bitmap (this index's own, reused: valid until its next call), for a q `widenable`.
   */
  partial(m: TextMatches, scope: Uint32Array): Uint32Array {
    const { starts, ids } = this.#postings;
    const n = this.#all.length;
    if (this.#words.length < m.terms.length)
      this.#words = Array.from({ length: m.terms.length }, () => new Uint32Array(n));
    const per = m.terms.map((found, w) => {
      const bits = (this.#words[w] as Uint32Array).fill(0);
      for (const t of found) setAll(bits, ids.subarray(starts[t.at], starts[t.at + 1]));
      return bits;
    });
    const strict = this.bits(m);
    const out = this.#partial;
    const [a, b, c] = per as [Uint32Array, Uint32Array, Uint32Array | undefined];
    // Of two words, a one-character one (`m` in `tee m`) never matches alone.
    const alone = m.kept.map((q) => [...q].length > 1);
    const [ax, by] = [alone[0] ? -1 : 0, alone[1] ? -1 : 0];
    for (let i = 0; i < n; i++) {
      const x = a[i] as number;
      const y = b[i] as number;
      // Two words: either; three: at least two of them.
      const some = c ? (x & y) | ((c[i] as number) & (x | y)) : (x & ax) | (y & by);
      out[i] = some & (scope[i] as number) & ~(strict[i] as number);
    }
    return out;
  }

  /** The matches of a search as a bitmap (TextIndex's own, reused: valid until its next search). */
  bits(m: TextMatches): Uint32Array {
    if (m.all) return m.all;
    const bits = this.#all.fill(0);
    if (m.list) setAll(bits, m.list);
    return bits;
  }

  /**
   * Relevance of each product of `of` (ascending ids, all matches of `m`, strict or, in
   * `partial`, second-chance) as one sort key at the same places (reused memory: valid until the
   * next call), lower first: tier * 2^42 + (2^42 - 1 - score), tier 0 for a strict match, 1 for
   * a partial one having q's last word, 2 for one without it. A score is at most 10 words x idf
   * (11 bits) x weight (16 bits) x factor (7 bits), below 2^42, and the key below 2^53, so keys
   * compare exactly: every strict match first, then the highest score.
   */
  relevance(of: Uint32Array, m: Pick<TextMatches, "terms" | "idf">, partial: Uint32Array | null): Float64Array {
    const { starts, ids } = this.#postings;
    const slot = this.#slot;
    const n = of.length;
    for (let i = 0; i < n; i++) slot[of[i] as number] = i;
    if (this.#scored.key.length < n) {
      const size = Math.min(this.#size, Math.max(n, 2 * this.#scored.key.length));
      this.#scored = { best: new Float64Array(size), key: new Float64Array(size) };
    }
    const best = this.#scored.best.subarray(0, n);
    const score = this.#scored.key.subarray(0, n).fill(0);
    try {
      m.terms.forEach((found, w) => {
        const idf = m.idf[w] as number;
        best.fill(0);
        for (const t of found) {
          const factor = t.factor;
          const from = starts[t.at] as number;
          const to = starts[t.at + 1] as number;
          if (n * 16 < to - from) {
            // Few products to score against a long list: find each by binary search.
            for (let i = 0; i < n; i++) {
              const j = this.#find(t.at, of[i] as number);
              if (j < 0) continue;
              const s = this.#weight(j, of[i] as number) * factor;
              if (s > (best[i] as number)) best[i] = s;
            }
            continue;
          }
          for (let j = from; j < to; j++) {
            const i = slot[ids[j] as number] as number;
            if (i < 0) continue;
            const s = this.#weight(j, ids[j] as number) * factor;
            if (s > (best[i] as number)) best[i] = s;
          }
        }
        for (let i = 0; i < n; i++) score[i] = (score[i] as number) + idf * (best[i] as number);
        // A second-chance match missing the last word (the head of a noun phrase: `cupcakes` in
        // `red velvet cupcakes`) ranks below one having it.
        if (partial && w === m.terms.length - 1)
          for (let i = 0; i < n; i++)
            if (best[i] === 0 && has(partial, of[i] as number)) score[i] = -(score[i] as number) - 1;
      });
    } finally {
      for (let i = 0; i < n; i++) slot[of[i] as number] = -1;
    }
    const key = score;
    for (let i = 0; i < n; i++) {
      const s = score[i] as number;
      const tier = partial && has(partial, of[i] as number) ? (s < 0 ? 2 : 1) : 0;
      key[i] = tier * 2 ** 42 + (2 ** 42 - 1 - (s < 0 ? -s - 1 : s));
    }
    return key;
  }
}
