/**
 * Text folding for browse, shared by the index build (Node, at publish) and the reader (the
 * Worker), so a word is cut and compared one way on both sides.
 *
 * - Search words (`q`, and what it is matched against): Unicode NFKD, combining marks dropped,
 *   lower case, then every run of letters and digits is a word. `Café` gives `cafe`,
 *   `NWT-TEE-M` gives `nwt`, `tee`, `m`.
 * - Filter values (`vendor`, `product_type`, `tag`, `option.<name>`): exact but case-insensitive,
 *   so the key is the value in NFC and lower case (accents kept: `Café` is not `Cafe` here).
 */

const MARKS = /\p{M}+/gu;
const WORD = /[\p{L}\p{N}]+/gu;

/** Lower case without accents (`Élan Vital` -> `elan vital`): the title sort key and the base of words. */
export function foldText(text: string): string {
  // Lower case on both sides of NFKD: `İ` lowers into a mark, `ℌ` decomposes into an upper-case `H`.
  return text.toLowerCase().normalize("NFKD").replace(MARKS, "").toLowerCase();
}

/** The search words of a text, in order (repeats kept). */
export function searchWords(text: string): string[] {
  return foldText(text).match(WORD) ?? [];
}

/** The key a filter value is matched by: case-insensitive, otherwise exact. */
export function valueKey(value: string): string {
  return value.normalize("NFC").toLowerCase();
}

/** Code point order (the order SQLite's BINARY collation gives UTF-8 text), for ties by value. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.codePointAt(i) ?? 0;
    const y = b.codePointAt(i) ?? 0;
    if (x !== y) return x - y;
    if (x > 0xffff) i++;
  }
  return a.length - b.length;
}

/**
 * Relevance (q, `sort=relevance`): BM25F, shared by the index build (each word's weight in each
 * product, at publish) and the reader (each word's idf, at load), so both score one way.
 *
 * A product's fields are searched with these weights; title highest, the description lowest.
 * In a field a word occurs `tf` times; the field's length (words, stop words aside) is set
 * against the catalog's average for that field (b: how much; 0 for the short list-like fields).
 * tf~ = sum over fields of weight * tf / (1 - b + b * length / average); the word's weight in the
 * product is tf~ / (K1 + tf~), stored as a byte (1..255). A query word's score in a product is
 * idf(word) * byte, idf = ln(1 + (n - df + 0.5) / (df + 0.5)) * IDF_SCALE rounded (df: products
 * having the word, n: the catalog's size), so every score is an integer and ties are exact.
 */
export const SEARCH_FIELDS = ["title", "vendor", "product_type", "tags", "options", "sku", "description"] as const;
export type SearchField = (typeof SEARCH_FIELDS)[number];
export const FIELD_WEIGHTS: Record<SearchField, number> = {
  title: 6,
  vendor: 3,
  product_type: 3,
  tags: 3,
  options: 2,
  sku: 3,
  description: 1,
};
const FIELD_B: Record<SearchField, number> = {
  title: 0.75,
  vendor: 0,
  product_type: 0,
  tags: 0,
  options: 0,
  sku: 0,
  description: 0.75,
};
const K1 = 1.2;
export const IDF_SCALE = 100;

/** A word's weight (1..255) in a product, from its count and each field's length and catalog average, field by field (SEARCH_FIELDS order). */
export function wordWeight(tf: readonly number[], length: readonly number[], average: readonly number[]): number {
  let t = 0;
  SEARCH_FIELDS.forEach((field, f) => {
    const n = tf[f] ?? 0;
    if (n === 0) return;
    const b = FIELD_B[field];
    const avg = average[f] || 1;
    t += (FIELD_WEIGHTS[field] * n) / (1 - b + (b * (length[f] ?? 0)) / avg);
  });
  return Math.max(1, Math.min(255, Math.round((255 * t) / (K1 + t))));
}

/** A word's idf as an integer, from the products having it (df) of n. */
export function idfScore(df: number, n: number): number {
  return Math.round(Math.log(1 + (n - df + 0.5) / (df + 0.5)) * IDF_SCALE);
}

/**
 * Typo tolerance: the edits a query word of this many characters may be off by (Damerau: an
 * insertion, deletion, substitution or swap of two neighbours counts one; optimal string
 * alignment). 5+ characters: one, 8+: two. A word of digits only is never corrected.
 */
export function typoBudget(word: string): number {
  if (/^\p{N}+$/u.test(word)) return 0;
  const n = [...word].length;
  return n >= 8 ? 2 : n >= 5 ? 1 : 0;
}

/** Words joined by hyphens, no space between (`T-Shirt`, `six-panel`), after folding. */
const HYPHENATED = /[\p{L}\p{N}]+(?:[-\u2010][\p{L}\p{N}]+)+/gu;

/** The hyphenated runs of a text written together (`Example T-Shirt` -> `tshirt`): what a shopper types for them. */
export function joinedWords(text: string): string[] {
  return (foldText(text).match(HYPHENATED) ?? []).map((run) => run.replace(/[-\u2010]/g, ""));
}

/**
 * One word of q: folded; `exact` (quoted, or q is a SKU) matches only itself, no typo, no prefix.
 * `also`: the words of a q of letters joined by hyphens (`t-shirt`) also match that q written
 * together (`tshirt`) as a last word would, with prefix and typos, as the index holds every
 * hyphenated run of the catalog written together (SKUs aside, so `NW-ECT-BLK-M` stays exact).
 */
export interface QueryWord {
  word: string;
  exact: boolean;
  also?: string;
}

/**
 * The words of q. Words inside double quotes are exact (an unclosed quote runs to the end); a q
 * that is one SKU-shaped token (no space, and a letter with a digit, or two words joined by
 * `-`, `_`, `.` or `/`: `NW-ECT-BLK-M`, `750ml`) is exact throughout; when it is letters joined
 * by hyphens, each word also matches it written together (`also`).
 */
export function queryWords(q: string): QueryWord[] {
  const token = q.trim();
  const sku =
    !/[\s"]/.test(token) &&
    ((/\p{L}/u.test(token) && /\p{N}/u.test(token)) || /[\p{L}\p{N}][-_./][\p{L}\p{N}]/u.test(token));
  const folded = foldText(token);
  const also = sku && /^\p{L}+(?:[-\u2010]\p{L}+)+$/u.test(folded) ? folded.replace(/[-\u2010]/g, "") : undefined;
  const out: QueryWord[] = [];
  q.split('"').forEach((part, i) => {
    for (const word of searchWords(part)) out.push({ word, exact: sku || i % 2 === 1, ...(also ? { also } : {}) });
  });
  return out;
}
