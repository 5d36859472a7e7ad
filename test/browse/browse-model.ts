import {
  compareCodePoints,
  foldText,
  idfScore,
  inflections,
  MATCH,
  mayWiden,
  queryWords,
  SEARCH_FIELDS,
  SECOND_CHANCE_BELOW,
  searchWords,
  typoBudget,
  typoFactor,
  valueKey,
  wordWeight,
} from "../../src/browse/text.ts";
import { prepareContent } from "../../src/publish/sanitize.ts";
import { optionApiName, type SourceCatalog, type SourceProduct } from "../../src/catalog/schema.ts";
import { toMinor } from "../../src/money.ts";

/**
 * The brute-force model of browse that the property tests hold the API to:
 * every product checked against every filter, sorted with Array.sort, counted with Maps. It
 * shares with the code under test only the text folding and q's parsing (tested on its own by
 * examples) and the definitions of relevance (text.ts: the weight and idf formulas, the match
 * factors, a word's other forms, the typo budget and the second chance's threshold); which words
 * a query word matches (itself, its other forms, completions, every word within its typo budget
 * by a full edit-distance table, synonyms, stop words), each word's idf, the second chance and
 * the order are its own.
 */

export interface ModelQuery {
  q?: string;
  available?: boolean;
  vendor?: string[];
  product_type?: string[];
  tag?: string[];
  options?: Record<string, string[]>;
  price_min?: number;
  price_max?: number;
  sort?: string;
  limit?: number;
  starting_after?: string;
  ending_before?: string;
}

const price = (p: SourceProduct) => Math.min(...p.variants.map((v) => toMinor(v.price)));

const distances = new Map<string, number>();

/** Optimal string alignment distance, the whole table (remembered by pair). */
function osa(a: string, b: string): number {
  const key = `${a}\u0000${b}`;
  let d = distances.get(key);
  if (d === undefined) distances.set(key, (d = osaTable(a, b)));
  return d;
}

function osaTable(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      row[j] = Math.min(
        (up[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (up[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j] as number, ((d[i - 2] as number[])[j - 2] as number) + 1);
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/** What search knows of one product: per field (SEARCH_FIELDS order) each word's count, and the field's length. */
interface Searched {
  tf: Map<string, number>[];
  length: number[];
  all: Set<string>;
  /** Each word's weight, once asked. */
  weights: Map<string, number>;
}

/** How a product matched q: strict (every word) or second chance (all but one), and its score. */
interface Hit {
  /** 0: every word; 1: all but one, the last word among them; 2: all but the last. */
  tier: number;
  score: number;
}

/** The search side of the model, per catalog: every product's words, df, field averages. */
interface SearchModel {
  products: Map<SourceProduct, Searched>;
  df: Map<string, number>;
  average: number[];
  n: number;
  stop: Set<string>;
  /** search() answers by scope, then q (the facets ask the same many times). */
  memo: WeakMap<readonly SourceProduct[], Map<string, Map<SourceProduct, Hit>>>;
}

const models = new WeakMap<SourceCatalog, SearchModel>();

/**
 * Hyphenated words written together (`T-Shirt` -> `tshirt`): cut the folded text at what is
 * neither a letter, a digit nor a hyphen, cut each piece at its hyphens, and join each run of
 * two or more non-empty parts.
 */
function joined(text: string): string[] {
  const out: string[] = [];
  for (const piece of foldText(text).split(/[^\p{L}\p{N}\-\u2010]+/u)) {
    let run: string[] = [];
    for (const part of [...piece.split(/[-\u2010]/), ""]) {
      if (part !== "") run.push(part);
      else {
        if (run.length > 1) out.push(run.join(""));
        run = [];
      }
    }
  }
  return out;
}

/**
 * Camel-case words cut where a lower-case letter meets an upper-case one (`#GlutenFree` ->
 * `gluten`, `free`), character by character; each part folded into search words.
 */
function camel(text: string): string[] {
  const out: string[] = [];
  for (const token of text.split(/[^\p{L}\p{N}]+/u)) {
    const chars = [...token];
    const cut = chars.some((c, i) => i > 0 && /\p{Lu}/u.test(c) && /\p{Ll}/u.test(chars[i - 1] as string));
    if (!cut) continue;
    let part = "";
    chars.forEach((c, i) => {
      if (i > 0 && /\p{Lu}/u.test(c) && /\p{Ll}/u.test(chars[i - 1] as string)) {
        out.push(...searchWords(part));
        part = "";
      }
      part += c;
    });
    out.push(...searchWords(part));
  }
  return out;
}

/**
 * A field gains, once, every word of a synonym group one of whose phrases it holds
 * (consecutively), the joined form of its hyphenated words and the parts of its camel-case words
 * (not the SKUs'); stop words never count.
 */
function searchModel(catalog: SourceCatalog): SearchModel {
  const known = models.get(catalog);
  if (known) return known;
  const stop = new Set((catalog.search?.stop_words ?? []).flatMap(searchWords));
  const groups = (catalog.search?.synonyms ?? []).map((g) => g.map(searchWords));
  const products = new Map<SourceProduct, Searched>();
  const df = new Map<string, number>();
  for (const p of catalog.products) {
    const description = p.description_html ? prepareContent(p.description_html).text : "";
    const texts = [
      [p.title],
      [p.vendor],
      [p.product_type],
      p.tags,
      p.options.flatMap((o) => o.values),
      p.variants.map((v) => v.sku ?? ""),
      [description],
    ];
    const fields = texts.map((t) => t.flatMap(searchWords));
    const tf = fields.map((words, f) => {
      const counts = new Map<string, number>();
      for (const w of words) if (!stop.has(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
      const text = ` ${words.join(" ")} `;
      for (const g of groups) {
        if (!g.some((phrase) => phrase.length > 0 && text.includes(` ${phrase.join(" ")} `))) continue;
        for (const w of g.flat()) if (!stop.has(w) && !counts.has(w)) counts.set(w, 1);
      }
      if (SEARCH_FIELDS[f] !== "sku")
        for (const w of (texts[f] as string[]).flatMap((t) => [...joined(t), ...camel(t)]))
          if (!stop.has(w) && !counts.has(w)) counts.set(w, 1);
      return counts;
    });
    const length = fields.map((words) => words.filter((w) => !stop.has(w)).length);
    const all = new Set(tf.flatMap((m) => [...m.keys()]));
    for (const w of all) df.set(w, (df.get(w) ?? 0) + 1);
    products.set(p, { tf, length, all, weights: new Map() });
  }
  const average = SEARCH_FIELDS.map(
    (_, f) =>
      [...products.values()].reduce((n, x) => n + (x.length[f] as number), 0) / Math.max(1, catalog.products.length),
  );
  const model = { products, df, average, n: catalog.products.length, stop, memo: new WeakMap() };
  models.set(catalog, model);
  return model;
}

/**
 * The query words that count (stop words out unless nothing else), each with whether it is a
 * prefix: the last word of q, not exact, and of one character only when it is the only word left.
 */
function kept(q: string, m: SearchModel) {
  const all = queryWords(q).map((w, i, ws) => ({ ...w, prefix: i === ws.length - 1 && !w.exact }));
  const some = all.filter((w) => !m.stop.has(w.word));
  const words = some.length > 0 ? some : all;
  return words.map((w) => ({ ...w, prefix: w.prefix && (words.length === 1 || [...w.word].length > 1) }));
}

type Kept = ReturnType<typeof kept>[number];

/** How much of index word x's weight query word w keeps (text.ts MATCH), -1 when w does not match x. */
function factor(w: Kept, x: string): number {
  // A hyphenated q's words match themselves scoring nothing (MATCH.part), and it written
  // together, as a last word (prefix, forms, typos).
  if (w.also !== undefined && x === w.word && x !== w.also)
    return Math.max(MATCH.part, factor({ ...w, word: w.also, exact: false, prefix: true, also: undefined }, x));
  const ways = w.also === undefined ? [w] : [{ word: w.also, exact: false, prefix: true }];
  let best = -1;
  for (const v of ways) {
    if (x === v.word) return MATCH.exact;
    if (v.exact) continue;
    if (inflections(v.word).includes(x)) best = Math.max(best, MATCH.form);
    if (v.prefix && x.startsWith(v.word)) best = Math.max(best, MATCH.completion);
    const budget = typoBudget(v.word);
    // Beyond the budget in length alone: more edits than the budget, no table needed.
    if (budget > 0 && Math.abs(x.length - v.word.length) <= budget) {
      const d = osa(v.word, x);
      if (d <= budget) best = Math.max(best, typoFactor(d));
    }
  }
  return best;
}

/**
 * A query word's df for its idf: the typed word's in the catalog (a hyphenated q's: it written
 * together), else its commonest match's; 0 when it matches nothing.
 */
function dfOf(w: Kept, m: SearchModel): number {
  const own = m.df.get(w.also ?? w.word);
  if (own !== undefined) return own;
  let common = 0;
  for (const [x, df] of m.df) if (df > common && factor(w, x) >= 0) common = df;
  return common;
}

/** The weight x factor of w's best match in p (-1: none). */
function bestIn(p: SourceProduct, w: Kept, m: SearchModel): number {
  const s = m.products.get(p) as Searched;
  let best = -1;
  for (const x of s.all) {
    const f = factor(w, x);
    if (f < 0) continue;
    let weight = s.weights.get(x);
    if (weight === undefined)
      s.weights.set(
        x,
        (weight = wordWeight(
          s.tf.map((t) => t.get(x) ?? 0),
          s.length,
          m.average,
        )),
      );
    best = Math.max(best, weight * f);
  }
  return best;
}

/**
 * q's matches in `scope`: the products matching every word (strict), and when q may widen
 * (text.ts mayWiden) and has fewer than SECOND_CHANCE_BELOW strict matches in the scope, those
 * matching all but one (of two words, a one-character one never alone), those having the last
 * word (the head of the phrase) first; each with its score, a sum over words of idf x best.
 */
function search(scope: readonly SourceProduct[], q: string, m: SearchModel): Map<SourceProduct, Hit> {
  let byQ = m.memo.get(scope);
  if (!byQ) m.memo.set(scope, (byQ = new Map()));
  const known = byQ.get(q);
  if (known) return known;
  const words = kept(q, m);
  const dfs = words.map((w) => dfOf(w, m));
  const idf = dfs.map((df) => (df > 0 ? idfScore(df, m.n) : 0));
  const hits = new Map<SourceProduct, Hit>();
  const found = new Map<SourceProduct, number[]>();
  for (const p of scope)
    found.set(
      p,
      words.map((w) => bestIn(p, w, m)),
    );
  const score = (bests: number[]) => bests.reduce((sum, b, i) => sum + (idf[i] as number) * Math.max(0, b), 0);
  for (const [p, bests] of found) if (bests.every((b) => b >= 0)) hits.set(p, { tier: 0, score: score(bests) });
  const widens =
    mayWiden(words.map((w, i) => ({ ...w, known: (dfs[i] as number) > 0 }))) && hits.size < SECOND_CHANCE_BELOW;
  if (widens)
    for (const [p, bests] of found) {
      if (hits.has(p)) continue;
      const matched = words.filter((_, i) => (bests[i] as number) >= 0);
      const partial =
        words.length === 3 ? matched.length === 2 : matched.length === 1 && [...(matched[0]?.word ?? "")].length > 1;
      if (partial) hits.set(p, { tier: (bests.at(-1) as number) >= 0 ? 1 : 2, score: score(bests) });
    }
  byQ.set(q, hits);
  return hits;
}

type Except = "vendor" | "product_type" | "tag" | "available" | "price" | `option.${string}` | null;

export function matches(
  p: SourceProduct,
  q: ModelQuery,
  m: SearchModel,
  scope: readonly SourceProduct[],
  except: Except = null,
): boolean {
  if (q.q !== undefined && !search(scope, q.q, m).has(p)) return false;
  const keys = (list?: string[]) => new Set((list ?? []).map(valueKey));
  if (q.available !== undefined && except !== "available" && p.available !== q.available) return false;
  if (q.vendor && except !== "vendor" && !keys(q.vendor).has(valueKey(p.vendor))) return false;
  if (q.product_type && except !== "product_type" && !keys(q.product_type).has(valueKey(p.product_type))) return false;
  if (q.tag && except !== "tag" && !p.tags.some((t) => keys(q.tag).has(valueKey(t)))) return false;
  for (const [name, values] of Object.entries(q.options ?? {})) {
    if (except === `option.${name}`) continue;
    const wanted = keys(values);
    const option = p.options.find((o) => optionApiName(o.name) === name);
    if (
      !option ||
      !p.variants.some((v) => p.available && v.available && wanted.has(valueKey(v.options[option.name] ?? "")))
    )
      return false;
  }
  if (except !== "price" && q.price_min !== undefined && price(p) < q.price_min) return false;
  if (except !== "price" && q.price_max !== undefined && price(p) > q.price_max) return false;
  return true;
}

const created = (p: SourceProduct) => (p.created_at ? Date.parse(p.created_at) : Number.NEGATIVE_INFINITY);

const scopes = new WeakMap<SourceCatalog, Map<string, SourceProduct[]>>();

/** The scope's products in scope order (one array per catalog and collection: q's matches are remembered by it). */
export function scopeOf(catalog: SourceCatalog, collection?: string): SourceProduct[] {
  if (collection === undefined) return catalog.products;
  let byCollection = scopes.get(catalog);
  if (!byCollection) scopes.set(catalog, (byCollection = new Map()));
  const known = byCollection.get(collection);
  if (known) return known;
  const byHandle = new Map(catalog.products.map((p) => [p.handle, p]));
  const list = (catalog.collections.find((c) => c.handle === collection)?.products ?? []).map(
    (h) => byHandle.get(h) as SourceProduct,
  );
  byCollection.set(collection, list);
  return list;
}

export function sorted(scope: SourceProduct[], q: ModelQuery, catalog: SourceCatalog): SourceProduct[] {
  const m = searchModel(catalog);
  const rank = new Map(scope.map((p, i) => [p.handle, i]));
  const sort = q.sort ?? (q.q !== undefined ? "relevance" : "catalog");
  const key = (p: SourceProduct): number | string => {
    switch (sort) {
      case "relevance": {
        // Strict matches first, then partial ones with the last word, then the others; then the
        // highest score: one number (scores stay below 2^42).
        const r = search(scope, q.q ?? "", m).get(p);
        return r ? r.tier * 2 ** 42 - r.score : 0;
      }
      case "price_asc":
        return price(p);
      case "price_desc":
        return -price(p);
      case "title_asc":
      case "title_desc":
        return foldText(p.title);
      case "newest":
        return -created(p);
      default:
        return 0;
    }
  };
  return scope
    .filter((p) => matches(p, q, m, scope))
    .sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      let c =
        typeof ka === "string" ? compareCodePoints(ka, kb as string) : ka === kb ? 0 : ka < (kb as number) ? -1 : 1;
      if (sort === "title_desc") c = -c;
      return c || (rank.get(a.handle) ?? 0) - (rank.get(b.handle) ?? 0);
    });
}

/** The page the API must answer, or the parameter a 400 must name. */
export function page(
  scope: SourceProduct[],
  q: ModelQuery,
  catalog: SourceCatalog,
): { count: number; handles: string[]; has_more: boolean } | { error: string } {
  const all = sorted(scope, q, catalog);
  const limit = q.limit ?? 50;
  const cursor = q.starting_after ?? q.ending_before;
  if (cursor === undefined)
    return { count: all.length, handles: all.slice(0, limit).map((p) => p.handle), has_more: all.length > limit };
  const at = all.findIndex((p) => p.handle === cursor);
  if (at < 0) return { error: q.starting_after !== undefined ? "starting_after" : "ending_before" };
  if (q.starting_after !== undefined)
    return {
      count: all.length,
      handles: all.slice(at + 1, at + 1 + limit).map((p) => p.handle),
      has_more: at + 1 + limit < all.length,
    };
  const start = Math.max(0, at - limit);
  return { count: all.length, handles: all.slice(start, at).map((p) => p.handle), has_more: start > 0 };
}

interface Counted {
  value: string;
  count: number;
  selected: boolean;
}

function top(
  counts: Map<string, { value: string; count: number }>,
  selected: string[],
  given: (k: string) => string,
): Counted[] {
  const chosen = new Set(selected);
  const shown: Counted[] = selected.map((k) => ({
    value: counts.get(k)?.value ?? given(k),
    count: counts.get(k)?.count ?? 0,
    selected: true,
  }));
  const order = (a: { count: number; value: string }, b: { count: number; value: string }) =>
    b.count - a.count || compareCodePoints(a.value, b.value);
  const rest = [...counts]
    .filter(([k, c]) => !chosen.has(k) && c.count > 0)
    .map(([, c]) => c)
    .sort(order);
  return [...shown, ...rest.slice(0, 100 - shown.length).map((c) => ({ ...c, selected: false }))].sort(order);
}

/** The facets answer the API must give (values as the catalog first spells them). */
export function facets(catalog: SourceCatalog, scope: SourceProduct[], q: ModelQuery) {
  const m = searchModel(catalog);
  const first = new Map<string, string>();
  const see = (f: string, v: string) => first.has(`${f}|${valueKey(v)}`) || first.set(`${f}|${valueKey(v)}`, v);
  const names: string[] = [];
  for (const p of catalog.products) {
    see("vendor", p.vendor);
    see("product_type", p.product_type);
    p.tags.forEach((t) => see("tag", t));
    for (const o of p.options) {
      const name = optionApiName(o.name);
      if (!names.includes(name)) names.push(name);
      o.values.forEach((v) => see(`option.${name}`, v));
    }
  }
  const count = (facet: string, valuesOf: (p: SourceProduct) => string[]) => {
    const counts = new Map<string, { value: string; count: number }>();
    for (const p of scope) {
      if (!matches(p, q, m, scope, facet as Except)) continue;
      for (const k of new Set(valuesOf(p).map(valueKey))) {
        const entry = counts.get(k) ?? {
          value: facet === "available" ? k : (first.get(`${facet}|${k}`) ?? k),
          count: 0,
        };
        entry.count++;
        counts.set(k, entry);
      }
    }
    return counts;
  };
  // A value no product has shows as the request spelled it; given twice, the spelling first in code point order.
  const given = (list?: string[]) => (k: string) =>
    (list ?? []).filter((v) => valueKey(v) === k).sort(compareCodePoints)[0] ?? k;
  const sel = (list?: string[]) => [...new Set((list ?? []).map(valueKey))];
  const out: unknown[] = [
    {
      name: "vendor",
      type: "values",
      values: top(
        count("vendor", (p) => [p.vendor]),
        sel(q.vendor),
        given(q.vendor),
      ),
    },
    {
      name: "product_type",
      type: "values",
      values: top(
        count("product_type", (p) => (p.product_type ? [p.product_type] : [])),
        sel(q.product_type),
        given(q.product_type),
      ),
    },
    {
      name: "tag",
      type: "values",
      values: top(
        count("tag", (p) => p.tags),
        sel(q.tag),
        given(q.tag),
      ),
    },
    {
      name: "available",
      type: "values",
      values: top(
        count("available", (p) => [String(p.available)]),
        q.available === undefined ? [] : [String(q.available)],
        (k) => k,
      ),
    },
  ];
  for (const name of names) {
    const values = (p: SourceProduct) => {
      const option = p.options.find((o) => optionApiName(o.name) === name);
      return option
        ? p.variants.filter((v) => p.available && v.available).map((v) => v.options[option.name] ?? "")
        : [];
    };
    out.push({
      name: `option.${name}`,
      type: "values",
      values: top(count(`option.${name}`, values), sel(q.options?.[name]), given(q.options?.[name])),
    });
  }
  const prices = scope.filter((p) => matches(p, q, m, scope, "price")).map(price);
  const money = (m: number) => ({ amount: (m / 100).toFixed(2), currency: "USD" });
  out.push({
    name: "price",
    type: "range",
    min: prices.length ? money(Math.min(...prices)) : null,
    max: prices.length ? money(Math.max(...prices)) : null,
  });
  return { object: "facets", count: scope.filter((p) => matches(p, q, m, scope)).length, facets: out };
}
