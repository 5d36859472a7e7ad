import { invalidParameter, unknownParameter } from "../catalog/errors.ts";
import { optionApiName } from "../catalog/fields.ts";
import { includeMessage, LIST_INCLUDES } from "../catalog/api.ts";
import { compareCodePoints, type QueryWord, queryWords, valueKey } from "./text.ts";
import type { TextPlan } from "./index/text-index.ts";
import type { LiveStock } from "./live-stock.ts";
import { DEFAULT_CURRENCY, minorDigits, toUnits } from "../money.ts";
import {
  BROWSE_PARAMETERS,
  DEFAULT_BROWSE_LIMIT,
  MAX_FILTER_VALUES,
  MAX_LIMIT,
  MAX_OPTION_FILTERS,
  MAX_Q_CHARS,
  MAX_Q_WORDS,
  MAX_VALUE_CHARS,
  PAGE_PARAMETERS,
  SORTS,
  type Sort,
  VALUE_FILTERS,
} from "./parameters.ts";
import { count } from "../count.ts";

/**
 * The browse query of `GET /products`, a collection's products and the facets endpoints, parsed
 * from the raw query string against parameters.ts (the names, which repeat, the value schemas).
 * Repeatable filters are why this is not one strict zod object like the other catalog queries:
 * `tag=men&tag=unisex` is one filter with two values, and `option.<name>` is any option name of
 * the catalog. Lengths are counted in characters (code points), as the reference states.
 */

/** What narrows the matches: the same for a page and for facets. Values are keys (valueKey). */
export interface BrowseFilters {
  /** The search words of q (queryWords: folded, quoted or SKU words exact); empty without q. */
  words: QueryWord[];
  available?: boolean;
  /** Sorted keys without repeats; absent when the filter is not given. */
  vendor?: string[];
  product_type?: string[];
  tag?: string[];
  /** Option API name to sorted keys, names sorted. */
  options: [name: string, keys: string[]][];
  /**
   * Inclusive. As parsed: in units of 10^-PRICE_DIGITS whatever the currency; in the catalog's
   * minor units once inCurrency has run (what the browse engine compares).
   */
  price_min?: number;
  price_max?: number;
  /** The catalog's ISO 4217 code, set by inCurrency: the facets' price Money is in it. */
  currency?: string;
  /** The value as given, per filter and key, for a selected facet value absent from the catalog. */
  given: Map<string, string>;
  /**
   * Set by a sharded version's Worker only (shards.ts): what the whole catalog says of q's words
   * and whether q takes the second chance, so each shard answers as the whole index would.
   * Derived from q and the scope, so never part of the cache key.
   */
  plan?: TextPlan;
  /**
   * Set by the Worker (live-stock.ts) when live stock differs from the version's file: what the
   * engine applies to the `available` and option filters and the facet counts. Its generation is
   * already part of the cache key (the stock overlay's), so it is never keyed here.
   */
  stock?: LiveStock;
}

export interface BrowsePageQuery extends BrowseFilters {
  sort: Sort;
  limit: number;
  starting_after?: string;
  ending_before?: string;
  image: boolean;
  /** The version the client pages (checked by the HTTP layer before any answer; not part of the cache key). */
  catalog_version?: string;
}

/** The parameters given once (the value filters repeat). */
const SINGLE = new Set(
  Object.keys(BROWSE_PARAMETERS).filter((name) => !(VALUE_FILTERS as readonly string[]).includes(name)),
);
/** An option filter in the deepObject form: `option[<name>]`. */
const DEEP_OPTION = /^option\[[^[\]]*\]$/;

/** Price filters take up to this many decimals (the most any ISO 4217 currency has). */
const PRICE_DIGITS = 4;

/** `value` parsed by the parameter's schema, or 400 parameter_invalid saying what it must be. */
function checked<T>(name: string, value: string, expected: string): T {
  const result = BROWSE_PARAMETERS[name]!.safeParse(value);
  if (!result.success) throw invalidParameter(`Invalid ${name}: ${expected}.`, name);
  return result.data as T;
}

type Pairs = Iterable<[string, string]>;

function chars(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

function price(value: string, param: string): number {
  checked(param, value, "a decimal amount in the catalog's currency, like 25 or 19.99");
  return toUnits(value, PRICE_DIGITS);
}

/**
 * The filters with price_min and price_max in the catalog currency's minor units (the browse
 * engine compares those), and `currency` set for the facets' price. A price with more decimals
 * than the currency has is refused: `price_min=10.5` on a JPY catalog is 400 parameter_invalid.
 */
export function inCurrency<F extends BrowseFilters>(filters: F, currency: string = DEFAULT_CURRENCY): F {
  const digits = minorDigits(currency);
  const per = 10 ** (PRICE_DIGITS - digits);
  const out: F = { ...filters, currency };
  for (const param of ["price_min", "price_max"] as const) {
    const value = filters[param];
    if (value === undefined) continue;
    if (value % per !== 0)
      throw invalidParameter(
        `Invalid ${param}: ${currency} amounts have ${digits === 0 ? "no decimals" : `at most ${count(digits, "decimal")}`}.`,
        param,
      );
    out[param] = value / per;
  }
  return out;
}

function parseFilters(
  pairs: Pairs,
  allowed: (name: string) => boolean,
  endpoint: string,
): { filters: BrowseFilters; single: Map<string, string> } {
  const single = new Map<string, string>();
  const multi = new Map<string, string[]>();
  let values = 0;
  for (const [given, value] of pairs) {
    if (given === "") throw unknownParameter("A query parameter has no name.", "");
    // `option[size]` (the deepObject form generated clients send) is `option.size`.
    const raw = DEEP_OPTION.test(given) ? `option.${given.slice("option[".length, -1)}` : given;
    const isOption = raw.startsWith("option.");
    // Option names compare as the catalog's API names do: `option.Color` is `option.color`.
    const name =
      isOption && /^option\.[^\s.]{1,255}$/.test(raw) ? `option.${optionApiName(raw.slice("option.".length))}` : raw;
    if (!SINGLE.has(name) && !(VALUE_FILTERS as readonly string[]).includes(name) && !isOption) {
      throw unknownParameter(`Unknown query parameter: ${name}.`, name);
    }
    if (!allowed(name))
      throw unknownParameter(
        `${endpoint} take no ${name}: facets are counted over every match, never sorted or paged.`,
        name,
      );
    if (SINGLE.has(name)) {
      if (single.has(name)) throw invalidParameter(`Query parameter ${name} is given more than once.`, name);
      single.set(name, value);
      continue;
    }
    if (isOption && !/^option\.[^\s.]{1,255}$/.test(name))
      throw unknownParameter(
        `Unknown query parameter: ${given} (option filters are option[<name>] or option.<name>, with the option's API name).`,
        name,
      );
    if (value === "" || chars(value) > MAX_VALUE_CHARS)
      throw invalidParameter(`Invalid ${raw}: 1 to ${MAX_VALUE_CHARS} characters.`, raw);
    if (++values > MAX_FILTER_VALUES)
      throw invalidParameter(
        `At most ${MAX_FILTER_VALUES} filter values in all (vendor, product_type, tag, option.*).`,
        name,
      );
    multi.set(name, [...(multi.get(name) ?? []), value]);
  }
  const given = new Map<string, string>();
  const keysOf = (name: string): string[] | undefined => {
    const raw = multi.get(name);
    if (!raw) return undefined;
    const keys = raw.map((value) => {
      const key = valueKey(value);
      // One spelling per key whatever the parameters' order: the first in code point order.
      const spelled = given.get(`${name}\u0000${key}`);
      if (spelled === undefined || compareCodePoints(value, spelled) < 0) given.set(`${name}\u0000${key}`, value);
      return key;
    });
    return [...new Set(keys)].sort();
  };
  const optionNames = [...multi.keys()].filter((n) => n.startsWith("option.")).sort();
  if (optionNames.length > MAX_OPTION_FILTERS)
    throw invalidParameter(`At most ${MAX_OPTION_FILTERS} option filters.`, optionNames[MAX_OPTION_FILTERS]);

  const filters: BrowseFilters = {
    words: [],
    options: optionNames.map((n) => [n.slice("option.".length), keysOf(n) ?? []]),
    given,
  };
  for (const name of VALUE_FILTERS) {
    const keys = keysOf(name);
    if (keys) filters[name] = keys;
  }
  const q = single.get("q");
  if (q !== undefined) {
    if (q.trim() === "" || chars(q) > MAX_Q_CHARS)
      throw invalidParameter(`Invalid q: 1 to ${MAX_Q_CHARS} characters of text.`, "q");
    filters.words = queryWords(q);
    if (filters.words.length === 0)
      throw invalidParameter("Invalid q: it has no word (letters or digits) to search for.", "q");
    if (filters.words.length > MAX_Q_WORDS) throw invalidParameter(`Invalid q: at most ${MAX_Q_WORDS} words.`, "q");
  }
  const available = single.get("available");
  if (available !== undefined) filters.available = checked<boolean>("available", available, "true or false");
  const min = single.get("price_min");
  const max = single.get("price_max");
  if (min !== undefined) filters.price_min = price(min, "price_min");
  if (max !== undefined) filters.price_max = price(max, "price_max");
  if (filters.price_min !== undefined && filters.price_max !== undefined && filters.price_min > filters.price_max) {
    throw invalidParameter("Invalid price_max: it is below price_min.", "price_max");
  }
  return { filters, single };
}

/** `?include=` on a list, by the schema the document shows: only `image`, comma-separated, repeats counting once. */
function includeImage(raw: string | undefined): boolean {
  if (raw === undefined) return false;
  if (!PAGE_PARAMETERS.include.safeParse(raw).success)
    throw invalidParameter(`Invalid include: ${includeMessage(raw, LIST_INCLUDES)}.`, "include");
  return true;
}

/** The browse parameters of a product list (`GET /products`, `GET /collections/{handle}`). */
export function parseBrowsePage(pairs: Pairs): BrowsePageQuery {
  const { filters, single } = parseFilters(pairs, () => true, "");
  const given = single.get("sort");
  const sort = given === undefined ? undefined : checked<Sort>("sort", given, `one of ${SORTS.join(", ")}`);
  if (sort === "relevance" && filters.words.length === 0)
    throw invalidParameter("Invalid sort: relevance needs q (a search).", "sort");
  const limitText = single.get("limit");
  const limit =
    limitText === undefined
      ? DEFAULT_BROWSE_LIMIT
      : checked<number>("limit", limitText, `an integer from 1 to ${MAX_LIMIT}`);
  const query: BrowsePageQuery = {
    ...filters,
    sort: sort ?? (filters.words.length > 0 ? "relevance" : "catalog"),
    limit,
    image: includeImage(single.get("include")),
  };
  for (const param of ["starting_after", "ending_before"] as const) {
    const handle = single.get(param);
    if (handle === undefined) continue;
    query[param] = checked(param, handle, "a product handle");
  }
  const version = single.get("catalog_version");
  if (version !== undefined)
    query.catalog_version = checked(
      "catalog_version",
      version,
      "a catalog version (the X-Catalog-Version of the first page)",
    );
  if (query.starting_after !== undefined && query.ending_before !== undefined) {
    throw invalidParameter(
      "Invalid ending_before: starting_after and ending_before cannot be used together.",
      "ending_before",
    );
  }
  return query;
}

/** The parameters of a facets endpoint: the filters and q, never sort or paging. */
export function parseBrowseFacets(pairs: Pairs): BrowseFilters {
  return parseFilters(pairs, (name) => !(name in PAGE_PARAMETERS), "Facets").filters;
}

/** Whether a page query narrows or orders anything beyond the plain catalog list. */
export function isPlainList(q: BrowsePageQuery): boolean {
  return !hasFilters(q) && q.sort === "catalog";
}

export function hasFilters(f: BrowseFilters): boolean {
  return (
    f.words.length > 0 ||
    f.available !== undefined ||
    VALUE_FILTERS.some((name) => f[name] !== undefined) ||
    f.options.length > 0 ||
    f.price_min !== undefined ||
    f.price_max !== undefined
  );
}

/**
 * The cache-key form of a query: every value canonical (words folded, keys sorted without
 * repeats, prices in minor units, defaults spelled out), so equivalent URLs share one entry, and
 * everything the engine reads is in it, so two queries answered differently never share one
 * (test/browse/cache-key.test.ts holds both as properties). Lists are JSON, so a value holding a
 * comma cannot pose as two values.
 */
export function browseCacheKey(f: BrowseFilters, page?: BrowsePageQuery): Record<string, string> {
  const key: Record<string, string> = {};
  // Every field of every word decides the answer (issue 33: keying only `word` and `exact` let
  // `q=t-shirt`, whose words also match `tshirt`, share an entry with `q="t" "shirt"`, so whoever
  // asked first set the answer for both). The words are keyed in full, as JSON.
  if (f.words.length > 0) key.q = JSON.stringify(f.words.map((w) => [w.word, w.exact, w.also ?? null]));
  if (f.available !== undefined) key.available = String(f.available);
  for (const name of VALUE_FILTERS) {
    const keys = f[name];
    if (keys) key[name] = JSON.stringify(keys);
  }
  for (const [name, keys] of f.options) key[`option.${name}`] = JSON.stringify(keys);
  if (f.price_min !== undefined) key.price_min = String(f.price_min);
  if (f.price_max !== undefined) key.price_max = String(f.price_max);
  // Facets show a selected value no product has as the request spelled it, so the spellings
  // that are not already their keys are part of a facets answer's key (a page shows none).
  if (!page) {
    const spelled = [...f.given]
      .filter(([filterKey, value]) => !filterKey.endsWith(`\u0000${value}`))
      .sort(([a], [b]) => compareCodePoints(a, b));
    if (spelled.length > 0) key.spelled = JSON.stringify(spelled);
  }
  if (page) {
    key.sort = page.sort;
    key.limit = String(page.limit);
    if (page.starting_after !== undefined) key.starting_after = page.starting_after;
    if (page.ending_before !== undefined) key.ending_before = page.ending_before;
    if (page.image) key.include = "image";
  }
  return key;
}
