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
 * Relevance (q, `sort=relevance`): BM25F-like, shared by the index build (each word's weight in
 * each product, at publish) and the reader (each query word's idf and match factors), so both
 * score one way.
 *
 * A product's fields are searched with these weights; title highest, the description lowest.
 * In a field a word occurs `tf` times; the field's length (words, stop words aside) is set
 * against the catalog's average for that field (b: how much; 0 for the short list-like fields):
 * tf~ = tf / (1 - b + b * length / average). Each field saturates on its own, its weight
 * outside the saturation, so the weights keep their real range (title once: 6, a tag: 3, the
 * description once: 1; a word repeated in a field at most (K1 + 1) times that):
 * weight = sum over fields of FIELD_WEIGHTS[f] * tf~ * (K1 + 1) / (K1 + tf~), x WEIGHT_SCALE as
 * 16 bits (1..65535): the fields without length normalisation summed and rounded at publish
 * (packWeight), title and description added when a query is scored, with the averages of the
 * catalog answered (packedWeight; a change batch moves them). Until 2026-11-27 the fields were
 * summed inside one saturation and squeezed into a byte: a title weighed 1.2-2x a tag while idf
 * varies 5-10x.
 *
 * A query word's score in a product is idf x the best (weight x match factor) among the index
 * words it matched there (MATCH: exact > another form of the word > completion > typo, so a
 * title match with one typo, 6 x 30%, outweighs a description-only exact match, 1 x 100%). The
 * idf is the query word's, not each match's: the typed word's when the catalog has it, else
 * that of its commonest match (so a rare completion or misspelling does not outrank the word on
 * many titles). idf = ln(1 + (n - df + 0.5) / (df + 0.5)) * IDF_SCALE rounded (df: products
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
export const WEIGHT_SCALE = 1000;

/**
 * How much of a word's weight a match keeps, in percent, by how the index word was reached from
 * the query word: itself; another form of it (`inflections`: a plural, a singular, a British or
 * American spelling); a completion of the last word; one or two typos; `part`: a word of a q of
 * letters joined by hyphens matched by itself (`shirt` of `t-shirt`), which matches but scores
 * nothing, as such a q scores as written together (`tshirt`).
 */
export const MATCH = { exact: 100, form: 90, completion: 60, typo1: 30, typo2: 20, part: 0 } as const;

/** The factor of a match `typos` edits away (0: exact). */
export function typoFactor(typos: number): number {
  return typos === 0 ? MATCH.exact : typos === 1 ? MATCH.typo1 : MATCH.typo2;
}

/** The fields whose length counts against the catalog's average (FIELD_B above 0): title and description. */
const TITLE = SEARCH_FIELDS.indexOf("title");
const DESCRIPTION = SEARCH_FIELDS.indexOf("description");

/** One field's part of a word's weight, unscaled: its tf saturated, length set against the catalog's average. */
function fieldPart(field: SearchField, tf: number, length: number, average: number): number {
  if (tf === 0) return 0;
  const b = FIELD_B[field];
  const x = tf / (1 - b + (b * length) / (average || 1));
  return (FIELD_WEIGHTS[field] * x * (K1 + 1)) / (K1 + x);
}

/** Counts kept per field in a packed weight: more of one word in a title or description weighs no more. */
const MAX_TF = 255;

/**
 * What an index stores of a word in a product (issue 45): the parts of its weight that do not
 * depend on the catalog, packed in 32 bits: the fields without length normalisation summed and
 * scaled (WEIGHT_SCALE, 16 bits), then the word's count in the title and in the description (8
 * bits each, at most MAX_TF). The weight itself (packedWeight) is made when a query is scored,
 * from the product's title and description lengths and the averages of the catalog being
 * answered: a change batch moves the averages, and a stored weight would then differ from the
 * weight a full publish of the same catalog gives.
 */
export function packWeight(tf: readonly number[]): number {
  let fixed = 0;
  SEARCH_FIELDS.forEach((field, f) => {
    if (FIELD_B[field] === 0) fixed += fieldPart(field, tf[f] ?? 0, 0, 1);
  });
  const title = Math.min(MAX_TF, tf[TITLE] ?? 0);
  const description = Math.min(MAX_TF, tf[DESCRIPTION] ?? 0);
  return Math.min(65535, Math.round(fixed * WEIGHT_SCALE)) + title * 2 ** 16 + description * 2 ** 24;
}

/**
 * A word's weight (1..65535) in a product from its packed parts (packWeight), the product's title
 * and description lengths (words, stop words aside) and the catalog's average of each.
 */
export function packedWeight(
  packed: number,
  titleLength: number,
  descriptionLength: number,
  averageTitle: number,
  averageDescription: number,
): number {
  const fixed = packed & 0xffff;
  const title = (packed >>> 16) & 0xff;
  const description = packed >>> 24;
  if (title === 0 && description === 0) return Math.max(1, fixed);
  const scored =
    fieldPart("title", title, titleLength, averageTitle) +
    fieldPart("description", description, descriptionLength, averageDescription);
  return Math.max(1, Math.min(65535, fixed + Math.round(scored * WEIGHT_SCALE)));
}

/**
 * A word's weight (1..65535) in a product, from its count and each field's length and catalog
 * average, field by field (SEARCH_FIELDS order): packWeight, then packedWeight.
 */
export function wordWeight(tf: readonly number[], length: readonly number[], average: readonly number[]): number {
  return packedWeight(
    packWeight(tf),
    length[TITLE] ?? 0,
    length[DESCRIPTION] ?? 0,
    average[TITLE] ?? 0,
    average[DESCRIPTION] ?? 0,
  );
}

/** A word's idf as an integer, from the products having it (df) of n. */
export function idfScore(df: number, n: number): number {
  return Math.round(Math.log(1 + (n - df + 0.5) / (df + 0.5)) * IDF_SCALE);
}

/** British and American spellings a shopper may type for the catalog's (both ways). */
const SPELLINGS: [RegExp, string][] = [
  [/^(.{2,})our(.*)$/, "$1or$2"], // colour, flavour, favourite (not four, hour, your)
  [/^(.{2,})or(.*)$/, "$1our$2"],
  [/^(.{3,})is(e|es|ed|ing|er|ers|ation|ations)$/, "$1iz$2"], // moisturiser, organise
  [/^(.{3,})iz(e|es|ed|ing|er|ers|ation|ations)$/, "$1is$2"],
  [/^(.{2,}[^aeiou])re(s?)$/, "$1er$2"], // centre, fibre, litre
  [/^(.{2,}[^aeiou])er(s?)$/, "$1re$2"],
  [/^(.{3,})ogue(s?)$/, "$1og$2"], // catalogue
  [/^(.{3,})og(s?)$/, "$1ogue$2"],
];
const PAIRS: Record<string, string> = {
  grey: "gray",
  gray: "grey",
  jewellery: "jewelry",
  jewelry: "jewellery",
  aluminium: "aluminum",
  aluminum: "aluminium",
  tyre: "tire",
  tire: "tyre",
  pyjamas: "pajamas",
  pajamas: "pyjamas",
  yoghurt: "yogurt",
  yogurt: "yoghurt",
  doughnut: "donut",
  donut: "doughnut",
};

/** The plural and singular of a word of letters (-s, -es, -ies/-y both ways), itself aside. */
function numberForms(word: string): string[] {
  const out: string[] = [];
  const n = word.length;
  if (word.endsWith("ies") && n > 4) out.push(`${word.slice(0, -3)}y`);
  if (word.endsWith("es") && n > 4) out.push(word.slice(0, -2));
  if (word.endsWith("s") && !word.endsWith("ss") && n > 3) out.push(word.slice(0, -1));
  if (!word.endsWith("s")) out.push(`${word}s`);
  if (/(?:s|x|z|ch|sh)$/.test(word)) out.push(`${word}es`);
  if (/[^aeiou]y$/.test(word)) out.push(`${word.slice(0, -1)}ies`);
  return out;
}

/**
 * The other forms of a query word looked up in the index beside it: its plural or singular
 * (`shirts` -> `shirt`, `dress` -> `dresses`, `candies` -> `candy`), its British or American
 * spelling (`colour` <-> `color`, `grey` <-> `gray`, `moisturiser` <-> `moisturizer`) and the
 * plural or singular of that. Words of 3+ letters only (no digits). Applied at query time against
 * the index's words, which hold every field's words as written at publish: so the folding
 * reaches every field, both ways, and costs the index nothing; the exact form keeps
 * MATCH.exact, another form MATCH.form.
 */
export function inflections(word: string): string[] {
  if (!/^\p{L}{3,}$/u.test(word)) return [];
  const spellings = (w: string) => {
    const out = PAIRS[w] ? [PAIRS[w]] : [];
    for (const [from, to] of SPELLINGS) if (from.test(w)) out.push(w.replace(from, to));
    return out;
  };
  const numbers = numberForms(word);
  const spelled = spellings(word);
  const out = new Set<string>([...spelled, ...numbers]);
  // The plural of the other spelling, and the other spelling of the singular (`donuts` -> `doughnut`).
  for (const w of spelled) for (const f of numberForms(w)) out.add(f);
  for (const w of numbers) for (const f of spellings(w)) out.add(f);
  out.delete(word);
  return [...out];
}

/**
 * Second chance: a q of 2 or 3 words (stop words aside, none quoted or SKU-shaped) whose strict
 * matches in the scope are fewer than this also answers, ranked below them, the products
 * matching all its words but one. A fixed number, not the page's `limit`, so every page, cursor
 * and facets answer of a q sees one set of matches.
 */
export const SECOND_CHANCE_BELOW = 20;

/**
 * Whether a q of these kept words (each: its text, whether it is exact, whether it matched some
 * word of the catalog) may take the second chance: 2 or 3 words, none quoted or SKU-shaped; of
 * two, each of 2+ characters a word the store uses, so `chocolate bicycle` in a bakery still
 * answers nothing (a one-character word, `play m` typed halfway, may go). Of three, any one may
 * go (`linen summer dress` when no product says summer): two words must still match.
 */
export function mayWiden(words: readonly { word: string; exact: boolean; known: boolean }[]): boolean {
  if (words.length < 2 || words.length > 3 || words.some((w) => w.exact)) return false;
  return words.length === 3 || words.every((w) => w.known || [...w.word].length === 1);
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

/**
 * The parts of words written in camel case, folded (`#CakeDecorating` -> `cake`, `decorating`;
 * `#GlutenFree` -> `gluten`, `free`): what a shopper types for a hashtag-like tag, which alone
 * is one word (`cakedecorating`) nobody types.
 */
export function camelParts(text: string): string[] {
  const out: string[] = [];
  for (const token of text.match(/[\p{L}\p{N}]+/gu) ?? []) {
    if (!/\p{Ll}\p{Lu}/u.test(token)) continue;
    for (const part of token.split(/(?<=\p{Ll})(?=\p{Lu})/u)) out.push(...searchWords(part));
  }
  return out;
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
