import { compareCodePoints, foldText, searchWords, valueKey } from "../../src/catalog/browse-text.ts";
import { optionApiName, type SourceCatalog, type SourceProduct } from "../../src/catalog/schema.ts";
import { toMinor } from "../../src/money.ts";

/**
 * The brute-force model of browse (contract section 7) that the property tests hold the API to:
 * every product checked against every filter, sorted with Array.sort, counted with Maps. It
 * shares only the text folding with the code under test (tested on its own by examples).
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
const words = (p: SourceProduct) =>
  new Set([p.title, p.vendor, p.product_type, ...p.tags, ...p.options.flatMap((o) => o.values), ...p.variants.map((v) => v.sku ?? "")].flatMap(searchWords));

function wordHit(have: Set<string> | string[], word: string, prefix: boolean): boolean {
  for (const w of have) if (prefix ? w.startsWith(word) : w === word) return true;
  return false;
}

type Except = "vendor" | "product_type" | "tag" | "available" | "price" | `option.${string}` | null;

export function matches(p: SourceProduct, q: ModelQuery, except: Except = null): boolean {
  if (q.q !== undefined) {
    const ws = searchWords(q.q);
    const have = words(p);
    if (!ws.every((w, i) => wordHit(have, w, i === ws.length - 1))) return false;
  }
  const keys = (list?: string[]) => new Set((list ?? []).map(valueKey));
  if (q.available !== undefined && except !== "available" && p.available !== q.available) return false;
  if (q.vendor && except !== "vendor" && !keys(q.vendor).has(valueKey(p.vendor))) return false;
  if (q.product_type && except !== "product_type" && !keys(q.product_type).has(valueKey(p.product_type))) return false;
  if (q.tag && except !== "tag" && !p.tags.some((t) => keys(q.tag).has(valueKey(t)))) return false;
  for (const [name, values] of Object.entries(q.options ?? {})) {
    if (except === `option.${name}`) continue;
    const wanted = keys(values);
    const option = p.options.find((o) => optionApiName(o.name) === name);
    if (!option || !p.variants.some((v) => p.available && v.available && wanted.has(valueKey(v.options[option.name] ?? "")))) return false;
  }
  if (except !== "price" && q.price_min !== undefined && price(p) < q.price_min) return false;
  if (except !== "price" && q.price_max !== undefined && price(p) > q.price_max) return false;
  return true;
}

function relevance(p: SourceProduct, q: string): number {
  const ws = searchWords(q);
  const title = searchWords(p.title);
  return ws.filter((w, i) => wordHit(title, w, i === ws.length - 1)).length;
}

const created = (p: SourceProduct) => (p.created_at ? Date.parse(p.created_at) : Number.NEGATIVE_INFINITY);

/** The scope's products in scope order, with their rank. */
export function scopeOf(catalog: SourceCatalog, collection?: string): SourceProduct[] {
  if (collection === undefined) return catalog.products;
  const byHandle = new Map(catalog.products.map((p) => [p.handle, p]));
  return (catalog.collections.find((c) => c.handle === collection)?.products ?? []).map((h) => byHandle.get(h) as SourceProduct);
}

export function sorted(scope: SourceProduct[], q: ModelQuery): SourceProduct[] {
  const rank = new Map(scope.map((p, i) => [p.handle, i]));
  const sort = q.sort ?? (q.q !== undefined ? "relevance" : "catalog");
  const key = (p: SourceProduct): number | string => {
    switch (sort) {
      case "relevance":
        return -relevance(p, q.q ?? "");
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
    .filter((p) => matches(p, q))
    .sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      let c = typeof ka === "string" ? compareCodePoints(ka, kb as string) : ka === kb ? 0 : ka < (kb as number) ? -1 : 1;
      if (sort === "title_desc") c = -c;
      return c || (rank.get(a.handle) ?? 0) - (rank.get(b.handle) ?? 0);
    });
}

/** The page the API must answer, or the parameter a 400 must name. */
export function page(scope: SourceProduct[], q: ModelQuery): { count: number; handles: string[]; has_more: boolean } | { error: string } {
  const all = sorted(scope, q);
  const limit = q.limit ?? 50;
  const cursor = q.starting_after ?? q.ending_before;
  if (cursor === undefined) return { count: all.length, handles: all.slice(0, limit).map((p) => p.handle), has_more: all.length > limit };
  const at = all.findIndex((p) => p.handle === cursor);
  if (at < 0) return { error: q.starting_after !== undefined ? "starting_after" : "ending_before" };
  if (q.starting_after !== undefined) return { count: all.length, handles: all.slice(at + 1, at + 1 + limit).map((p) => p.handle), has_more: at + 1 + limit < all.length };
  const start = Math.max(0, at - limit);
  return { count: all.length, handles: all.slice(start, at).map((p) => p.handle), has_more: start > 0 };
}

interface Counted {
  value: string;
  count: number;
  selected: boolean;
}

function top(counts: Map<string, { value: string; count: number }>, selected: string[], given: (k: string) => string): Counted[] {
  const chosen = new Set(selected);
  const shown: Counted[] = selected.map((k) => ({ value: counts.get(k)?.value ?? given(k), count: counts.get(k)?.count ?? 0, selected: true }));
  const order = (a: { count: number; value: string }, b: { count: number; value: string }) => b.count - a.count || compareCodePoints(a.value, b.value);
  const rest = [...counts].filter(([k, c]) => !chosen.has(k) && c.count > 0).map(([, c]) => c).sort(order);
  return [...shown, ...rest.slice(0, 100 - shown.length).map((c) => ({ ...c, selected: false }))].sort(order);
}

/** The facets answer the API must give (values as the catalog first spells them). */
export function facets(catalog: SourceCatalog, scope: SourceProduct[], q: ModelQuery) {
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
      if (!matches(p, q, facet as Except)) continue;
      for (const k of new Set(valuesOf(p).map(valueKey))) {
        const entry = counts.get(k) ?? { value: facet === "available" ? k : (first.get(`${facet}|${k}`) ?? k), count: 0 };
        entry.count++;
        counts.set(k, entry);
      }
    }
    return counts;
  };
  // A value no product has shows as the request spelled it; given twice, the spelling first in code point order.
  const given = (list?: string[]) => (k: string) => (list ?? []).filter((v) => valueKey(v) === k).sort(compareCodePoints)[0] ?? k;
  const sel = (list?: string[]) => [...new Set((list ?? []).map(valueKey))];
  const out: unknown[] = [
    { name: "vendor", values: top(count("vendor", (p) => [p.vendor]), sel(q.vendor), given(q.vendor)) },
    { name: "product_type", values: top(count("product_type", (p) => (p.product_type ? [p.product_type] : [])), sel(q.product_type), given(q.product_type)) },
    { name: "tag", values: top(count("tag", (p) => p.tags), sel(q.tag), given(q.tag)) },
    { name: "available", values: top(count("available", (p) => [String(p.available)]), q.available === undefined ? [] : [String(q.available)], (k) => k) },
  ];
  for (const name of names) {
    const values = (p: SourceProduct) => {
      const option = p.options.find((o) => optionApiName(o.name) === name);
      return option ? p.variants.filter((v) => p.available && v.available).map((v) => v.options[option.name] ?? "") : [];
    };
    out.push({ name: `option.${name}`, values: top(count(`option.${name}`, values), sel(q.options?.[name]), given(q.options?.[name])) });
  }
  const prices = scope.filter((p) => matches(p, q, "price")).map(price);
  const money = (m: number) => ({ amount: (m / 100).toFixed(2), currency: "USD" });
  out.push({ name: "price", min: prices.length ? money(Math.min(...prices)) : null, max: prices.length ? money(Math.max(...prices)) : null });
  return { object: "facets", count: scope.filter((p) => matches(p, q)).length, facets: out };
}
