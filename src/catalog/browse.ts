import { BLOCK, type BrowseTable, browseTable, optionFacet, popcountSql } from "./browse-layout.ts";
import { type BrowseFilters, type BrowsePageQuery, hasFilters, type Sort, VALUE_FILTERS } from "./browse-query.ts";
import { CatalogError, invalidParameter, notFound, unknownParameter } from "./errors.ts";
import type { VersionMeta } from "./layout.ts";
import { listBody } from "./pages.ts";

/**
 * Search, filters and sorts over a version's browse index in D1 (layout in browse-layout.ts;
 * the decision and its numbers at the top of src/publish/browse-index.ts). Facet counts are
 * FacetCounter's (facet-counter.ts), which reads the same index once per version.
 *
 * Cost of one answer, whatever the catalog size: ONE D1 batch (one round trip).
 * - a page: at most 3 statements (collection header, option names, the page). With filters or
 *   q the page statement finds the matches once, as narrow rows (id, sort key, rank) in `p`,
 *   counts and sorts them, and reads the item JSON (`i`) of the page's rows only; it returns
 *   the count row, then at most limit + 2 rows (the cursor's own row first).
 * Only counting (count, relevance, sorting the matches) visits every match; a page
 * read in a sort's own order without filters visits limit + 2 rows through that sort's index.
 * A first page on the catalog under value filters only (vendor, product_type, tag, option.*,
 * available) visits no match at all to count: it ANDs the filters' bitmaps (`b`, one 62-bit
 * word per block of 62 products: at most 1,613 words per filter at 100,000 products) and walks
 * the sort's index for the page (bitmapPage).
 */

/** Where a browse reads: the whole catalog, or one collection's products in its order. */
export type Scope = { collection?: undefined } | { collection: string };

type Value = string | number;

/** Numbered parameters, each distinct value bound once (D1 binds at most 100 per statement). */
class Params {
  readonly values: Value[] = [];
  add(value: Value): string {
    let i = this.values.indexOf(value);
    if (i < 0) i = this.values.push(value) - 1;
    return `?${i + 1}`;
  }
  list(values: readonly Value[]): string {
    return values.map((v) => this.add(v)).join(", ");
  }
}

/** `"w1" "w2" "last"*`: every word, the last as a prefix (words are letters and digits only). */
export function matchText(words: readonly string[], column?: "t"): string {
  return words.map((w, i) => `${column ? `${column} : ` : ""}"${w}"${i === words.length - 1 ? "*" : ""}`).join(" ");
}

class BrowseSql {
  readonly t: (name: BrowseTable) => string;
  readonly params = new Params();
  readonly scope: Scope;
  readonly filters: BrowseFilters;

  constructor(version: string, scope: Scope, filters: BrowseFilters) {
    this.t = (name) => browseTable(version, name);
    this.scope = scope;
    this.filters = filters;
  }

  /** FROM and the scope's condition; `rank` is the position in the scope. */
  get from(): string {
    return this.scope.collection === undefined ? `${this.t("p")} p` : `${this.t("m")} s JOIN ${this.t("p")} p ON p.id = s.pid`;
  }
  get rank(): string {
    return this.scope.collection === undefined ? "p.id" : "s.r";
  }
  get scoped(): string {
    return this.scope.collection === undefined ? "1" : `s.c = ${this.params.add(this.scope.collection)}`;
  }

  /**
   * Every active filter, joined with AND. Of the filters on other tables (q, tag,
   * options) the first is `p.id IN (...)` and drives the lookup, the others are EXISTS probes
   * (several IN lists make SQLite walk their cross product). For one row (the cursor) each is
   * an EXISTS probe on its index.
   */
  where(one = false): string {
    const f = this.filters;
    const parts = [this.scoped];
    const sets: [idColumn: string, sub: string][] = [];
    if (f.words.length > 0) sets.push(["rowid", `FROM ${this.t("s")} WHERE ${this.t("s")} MATCH ${this.params.add(matchText(f.words))}`]);
    if (f.available !== undefined) parts.push(`p.avail = ${f.available ? 1 : 0}`);
    if (f.vendor) parts.push(`p.vendor IN (${this.params.list(f.vendor)})`);
    if (f.product_type) parts.push(`p.ptype IN (${this.params.list(f.product_type)})`);
    if (f.tag) sets.push(["pid", `FROM ${this.t("v")} WHERE ${this.valueIds("tag", f.tag)}`]);
    for (const [name, keys] of f.options) {
      sets.push(["pid", `FROM ${this.t("v")} WHERE ${this.valueIds(optionFacet(name), keys)}`]);
    }
    // The first set (q, else tags, else an option: usually the most selective first, since
    // option values like size M are the commonest) drives; every other one is a probe of its
    // primary key per candidate. At 100,000 products, counting `vendor&tag=new&option.size=M`
    // (sqlite3 3.40 on the D1 file): 16 ms this way for either the largest vendor (50k products)
    // or a small one (14k), against 23 / 34 ms for one INTERSECT of every set (it sorts each
    // posting list) and 35 / 13 ms for probes from the vendor index.
    const first = one ? undefined : sets[0];
    for (const [id, sub] of one ? sets : sets.slice(1)) parts.push(`EXISTS (SELECT 1 ${sub} AND ${id} = p.id)`);
    if (first) parts.push(`p.id IN (SELECT ${first[0]} ${first[1]})`);
    if (f.price_min !== undefined) parts.push(`p.price >= ${this.params.add(f.price_min)}`);
    if (f.price_max !== undefined) parts.push(`p.price <= ${this.params.add(f.price_max)}`);
    return parts.join(" AND ");
  }

  /** `vid` is the id of one of `keys` of `facet` (`d` row ids; a key no product has has none). */
  valueIds(facet: string, keys: readonly string[], column = "vid"): string {
    const d = this.t("d");
    return keys.length === 1
      ? `${column} = (SELECT id FROM ${d} WHERE f = ${this.params.add(facet)} AND k = ${this.params.add(keys[0] ?? "")})`
      : `${column} IN (SELECT id FROM ${d} WHERE f = ${this.params.add(facet)} AND k IN (${this.params.list(keys)}))`;
  }

  /**
   * Whether every active filter is a value filter (vendor, product_type, tag, option.*,
   * available) on the catalog: then the matches are the AND of the values' bitmaps (`b`).
   */
  get bitmapOnly(): boolean {
    const f = this.filters;
    return this.scope.collection === undefined && f.words.length === 0 && f.price_min === undefined && f.price_max === undefined && hasFilters(f);
  }

  /**
   * Whether the query is q alone on the catalog, ordered by catalog order or (one word) by
   * relevance: then full-text results, which come in rowid (catalog) order, are the page.
   */
  searchOnly(sort: Sort): boolean {
    const f = this.filters;
    const words = f.words.length;
    if (this.scope.collection !== undefined || words === 0 || !(sort === "catalog" || (sort === "relevance" && words === 1))) return false;
    return f.available === undefined && f.price_min === undefined && f.price_max === undefined && f.options.length === 0 && VALUE_FILTERS.every((name) => f[name] === undefined);
  }

  /**
   * The matches of the value filters as words: rows (blk, w) of the blocks holding at least one
   * match, `w` the AND over filters of each filter's bitmap (the OR of its values' bitmaps).
   * Vendor, product type and availability have one value per product, so their values' words
   * never share a bit and add up to their OR; tags and options OR their words explicitly.
   */
  matchWords(): string {
    const f = this.filters;
    const b = this.t("b");
    const id = (facet: string, key: string) => `(SELECT id FROM ${this.t("d")} WHERE f = ${this.params.add(facet)} AND k = ${this.params.add(key)})`;
    const sources: string[] = [];
    const conditions: string[] = [];
    const add = (facet: string, keys: readonly string[], disjoint: boolean) => {
      const alias = `b${sources.length}`;
      if (keys.length === 1) {
        sources.push(`${b} ${alias}`);
        conditions.push(`${alias}.vid = ${id(facet, keys[0] ?? "")}`);
      } else if (disjoint) sources.push(`(SELECT blk, sum(bits) AS bits FROM ${b} WHERE ${this.valueIds(facet, keys)} GROUP BY blk) ${alias}`);
      else {
        const joins = keys.map((key, i) => `LEFT JOIN ${b} x${i} ON x${i}.vid = ${id(facet, key)} AND x${i}.blk = u.blk`).join(" ");
        const or = keys.map((_, i) => `coalesce(x${i}.bits, 0)`).join(" | ");
        sources.push(`(SELECT u.blk AS blk, ${or} AS bits FROM (SELECT DISTINCT blk FROM ${b} WHERE ${this.valueIds(facet, keys)}) u ${joins}) ${alias}`);
      }
    };
    if (f.available !== undefined) add("available", [String(f.available)], true);
    if (f.vendor) add("vendor", f.vendor, true);
    if (f.product_type) add("product_type", f.product_type, true);
    if (f.tag) add("tag", f.tag, false);
    for (const [name, keys] of f.options) add(optionFacet(name), keys, false);
    const from = sources.map((source, i) => (i === 0 ? source : `JOIN ${source} ON b${i}.blk = b0.blk`)).join(" ");
    const w = sources.map((_, i) => `b${i}.bits`).join(" & ");
    return `SELECT b0.blk AS blk, ${w} AS w FROM ${from} WHERE ${[...conditions, `${w} <> 0`].join(" AND ")}`;
  }

  /** How many of the q words the title holds (the last as a prefix): relevance, higher first. */
  relevance(one: boolean): string {
    const s = this.t("s");
    return `(${this.filters.words
      .map((_, i, words) => {
        const text = this.params.add(matchText([words[i] ?? ""], "t").replace(/\*$/, i === words.length - 1 ? "*" : ""));
        return one ? `EXISTS (SELECT 1 FROM ${s} WHERE ${s} MATCH ${text} AND rowid = p.id)` : `(p.id IN (SELECT rowid FROM ${s} WHERE ${s} MATCH ${text}))`;
      })
      .join(" + ")})`;
  }
}

/** A sort's key (null: catalog order alone) and whether it runs high to low. Ties: catalog order. */
function sortKey(sql: BrowseSql, sort: Sort, one: boolean): { key: string | null; desc: boolean } {
  switch (sort) {
    case "catalog":
      return { key: null, desc: false };
    case "relevance":
      return { key: sql.relevance(one), desc: true };
    case "price_asc":
      return { key: "p.price", desc: false };
    case "price_desc":
      return { key: "p.price", desc: true };
    case "title_asc":
      return { key: "p.tkey", desc: false };
    case "title_desc":
      return { key: "p.tkey", desc: true };
    case "newest":
      return { key: "p.created", desc: true };
  }
}

/**
 * A first page of q alone on the catalog (searchOnly): full-text matches come in rowid order, so
 * the page is the first `take` of them, and under relevance (one word: a title match ranks
 * above any other) the title's matches in order, then the others (`NOT` the title's); the
 * compound stops reading at `take` rows. The count is the full-text query's. First row: the count.
 */
function searchPage(sql: BrowseSql, sort: Sort, take: string): string {
  const s = sql.t("s");
  const all = sql.params.add(matchText(sql.filters.words));
  const streams =
    sort === "relevance"
      ? [`t : ${matchText(sql.filters.words)}`, `${matchText(sql.filters.words)} NOT t : ${matchText(sql.filters.words)}`].map((text, k) => `SELECT rowid AS id, ${k} AS k FROM ${s} WHERE ${s} MATCH ${sql.params.add(text)}`)
      : [`SELECT rowid AS id, 0 AS k FROM ${s} WHERE ${s} MATCH ${all}`];
  const columns = "p.handle AS handle, i.item AS item, p.avail AS avail, i.img AS img";
  return `WITH pg AS MATERIALIZED (${streams.join(" UNION ALL ")} LIMIT ${take}) SELECT NULL AS handle, NULL AS item, NULL AS avail, NULL AS img, (SELECT count(*) FROM ${s} WHERE ${s} MATCH ${all}) AS n UNION ALL SELECT * FROM (SELECT ${columns}, NULL FROM pg CROSS JOIN ${sql.t("p")} p ON p.id = pg.id CROSS JOIN ${sql.t("i")} i ON i.id = p.id ORDER BY pg.k, pg.id)`;
}

/**
 * A first page on the catalog under value filters only, from their bitmaps (matchWords): the
 * count is the popcount of the ANDed words (a few thousand words at 100,000 products, whatever
 * the filters match), and the page walks the sort's index, testing each product with one lookup
 * of its word, until it has `take` matches. The walk is capped at 16 times the products a page
 * should need at the matches' density (none when the matches are fewer than the page or below
 * 1/32 of the catalog); when the cap leaves the page short, the page is instead sorted out of
 * every match, enumerated from the words. First row: the count.
 */
function bitmapPage(sql: BrowseSql, products: number, key: string | null, keyDir: string, take: string, takeCount: number): string {
  const p = sql.t("p");
  const n = sql.params.add(products);
  const order = `${key ? `${key} ${keyDir}, ` : ""}p.id`;
  const cap = `(SELECT CASE WHEN n < ${take} OR n * n < 4 * ${take} * ${n} THEN 0 ELSE CAST(8 * ${take} * ${n} / n + 100 AS INTEGER) END FROM n)`;
  const walk = `SELECT id, k FROM (SELECT p.id AS id, ${key ?? "0"} AS k FROM ${p} p ORDER BY ${order} LIMIT ${cap}) q WHERE ((SELECT w FROM m WHERE blk = q.id / ${BLOCK}) >> (q.id % ${BLOCK})) & 1 ORDER BY k ${keyDir}, id LIMIT ${take}`;
  // The guard row comes first (CROSS JOIN keeps the order), so a page the walk found costs nothing here.
  const short = `(SELECT 1 WHERE (SELECT count(*) FROM walk) < ${takeCount}) g`;
  // Bits are found a byte at a time: 8 tests per word, then 8 per byte that is not 0.
  const bits = `SELECT m.blk * ${BLOCK} + y.i + z.i AS id FROM ${short} CROSS JOIN m CROSS JOIN byte y CROSS JOIN bit z WHERE (m.w >> y.i) & 255 AND (m.w >> (y.i + z.i)) & 1`;
  const all = `SELECT p.id AS id, ${key ?? "0"} AS k FROM (${bits}) e CROSS JOIN ${p} p ON p.id = e.id ORDER BY k ${keyDir}, p.id LIMIT ${take}`;
  const pg = `SELECT id, k FROM walk WHERE (SELECT count(*) FROM walk) >= ${takeCount} UNION ALL SELECT * FROM (${all})`;
  const ctes = [
    `byte(i) AS (VALUES (0), (8), (16), (24), (32), (40), (48), (56))`,
    `bit(i) AS (VALUES (0), (1), (2), (3), (4), (5), (6), (7))`,
    `m AS MATERIALIZED (${sql.matchWords()})`,
    `n AS MATERIALIZED (SELECT coalesce(sum(${popcountSql("w")}), 0) AS n FROM m)`,
    `walk AS MATERIALIZED (${walk})`,
    `pg AS MATERIALIZED (${pg})`,
  ];
  const columns = "p.handle AS handle, i.item AS item, p.avail AS avail, i.img AS img";
  return `WITH ${ctes.join(", ")} SELECT NULL AS handle, NULL AS item, NULL AS avail, NULL AS img, (SELECT n FROM n) AS n UNION ALL SELECT * FROM (SELECT ${columns}, NULL FROM pg CROSS JOIN ${p} p ON p.id = pg.id CROSS JOIN ${sql.t("i")} i ON i.id = p.id ORDER BY pg.k ${keyDir}, pg.id)`;
}

interface PageRow {
  handle: string;
  item: string;
  avail: number;
  img: string;
}

/** The statements of one batch, run in one round trip; results in the same order. */
export interface Statement {
  sql: string;
  params: Value[];
}

/** The D1 side of browse: the only code that queries the BROWSE database. */
export class BrowseStore {
  readonly db: D1Database;
  constructor(db: D1Database) {
    this.db = db;
  }

  async batch(statements: readonly Statement[]): Promise<Record<string, unknown>[][]> {
    try {
      const results = await this.db.batch(statements.map((s) => this.db.prepare(s.sql).bind(...s.params)));
      return results.map((r) => r.results as Record<string, unknown>[]);
    } catch (error) {
      // A version published without its index (or whose index was dropped under the reader, or
      // written in an older layout: text keys in `v`, no bitmaps).
      if (error instanceof Error && /no such (table|column)/.test(error.message)) {
        throw new CatalogError("catalog_unavailable", "This catalog version has no browse index: publish the catalog again.");
      }
      throw error;
    }
  }
}

function statement(sql: BrowseSql, text: string): Statement {
  return { sql: text, params: sql.params.values };
}

/** The collection header and the option-name check, shared by pages and facets. */
function preamble(version: string, scope: Scope, filters: BrowseFilters): Statement[] {
  const out: Statement[] = [];
  if (scope.collection !== undefined) out.push({ sql: `SELECT title, n FROM ${browseTable(version, "c")} WHERE handle = ?1`, params: [scope.collection] });
  if (filters.options.length > 0) {
    const names = filters.options.map(([name]) => name);
    out.push({ sql: `SELECT name FROM ${browseTable(version, "o")} WHERE name IN (${names.map((_, i) => `?${i + 1}`).join(", ")})`, params: names });
  }
  return out;
}

/** Throws 404 for an unknown collection and 400 for an option no product has; returns the header. */
function checkPreamble(scope: Scope, filters: BrowseFilters, results: Record<string, unknown>[][]): { title: string; n: number } | null {
  let i = 0;
  let header: { title: string; n: number } | null = null;
  if (scope.collection !== undefined) {
    header = (results[i++]?.[0] as { title: string; n: number } | undefined) ?? null;
    if (!header) throw notFound(`No collection has the handle "${scope.collection}".`, "handle");
  }
  if (filters.options.length > 0) {
    const known = new Set((results[i++] ?? []).map((r) => r.name));
    const missing = filters.options.find(([name]) => !known.has(name));
    if (missing) throw unknownParameter(`Unknown query parameter: option.${missing[0]} (no product of the catalog has an option named "${missing[0]}").`, `option.${missing[0]}`);
  }
  return header;
}

function itemLine(row: PageRow, scope: Scope, image: boolean): string {
  let line = row.item.slice(0, -1);
  if (scope.collection !== undefined) line += `,"endpoint_status":${row.avail ? 200 : 404},"url":${JSON.stringify(`/api/v1/products/${row.handle}`)}`;
  if (image) line += `,"image":${row.img}`;
  return `${line}}`;
}

/**
 * A page of matches as the list envelope: `GET /products` with browse parameters, or a
 * collection's products (wrapped in the collection) when `scope` names one.
 */
export async function browsePage(store: BrowseStore, meta: VersionMeta, scope: Scope, q: BrowsePageQuery): Promise<string> {
  const statements = preamble(meta.version, scope, q);
  const filtered = hasFilters(q);
  const sql = new BrowseSql(meta.version, scope, q);
  const { key, desc } = sortKey(sql, q.sort, false);
  const cursor = q.starting_after ?? q.ending_before;
  const backwards = q.ending_before !== undefined;
  // Paging backwards reads the same order reversed, then turns the page round.
  const keyDir = desc !== backwards ? "DESC" : "ASC";
  const rankDir = backwards ? "DESC" : "ASC";
  const columns = "p.handle AS handle, i.item AS item, p.avail AS avail, i.img AS img";
  const items = `JOIN ${sql.t("i")} i ON i.id = p.id`;
  const take = sql.params.add(q.limit + (cursor === undefined ? 1 : 2));
  if (sql.searchOnly(q.sort) && cursor === undefined) {
    statements.push(statement(sql, searchPage(sql, q.sort, take)));
  } else if (sql.bitmapOnly && cursor === undefined) {
    statements.push(statement(sql, bitmapPage(sql, meta.products, key, keyDir, take, q.limit + 1)));
  } else if (filtered) {
    // The matches are found once, as narrow rows (id, sort key, rank), for both the count and
    // the page: sorting them costs what the matches do, and only the page's rows are then read
    // whole (their item JSON). The first row carries the count; the page follows in order.
    const m = `SELECT p.id AS id, ${key ?? "0"} AS k, ${sql.rank} AS r FROM ${sql.from} WHERE ${sql.where()}`;
    const order = `k ${keyDir}, r ${rankDir}`;
    let page = `SELECT id, k, r FROM m ORDER BY ${order} LIMIT ${take}`;
    if (cursor !== undefined) {
      // The cursor row itself comes first (same key, same rank), which proves it is a match.
      const c = `SELECT k, r FROM m WHERE id = (SELECT id FROM ${browseTable(meta.version, "p")} WHERE handle = ${sql.params.add(cursor)})`;
      const beyond = `(m.k ${keyDir === "ASC" ? ">" : "<"} c.k OR (m.k = c.k AND m.r ${backwards ? "<=" : ">="} c.r))`;
      page = `SELECT m.id AS id, m.k AS k, m.r AS r FROM m, (${c}) c WHERE ${beyond} ORDER BY m.k ${keyDir}, m.r ${rankDir} LIMIT ${take}`;
    }
    statements.push(
      statement(
        sql,
        `WITH m AS MATERIALIZED (${m}), pg AS MATERIALIZED (${page}) SELECT NULL AS handle, NULL AS item, NULL AS avail, NULL AS img, (SELECT count(*) FROM m) AS n UNION ALL SELECT * FROM (SELECT ${columns}, NULL FROM pg JOIN ${sql.t("p")} p ON p.id = pg.id ${items} ORDER BY pg.k ${keyDir}, pg.r ${rankDir})`,
      ),
    );
  } else if (cursor === undefined) {
    const order = `${key ? `${key} ${keyDir}, ` : ""}${sql.rank} ${rankDir}`;
    statements.push(statement(sql, `SELECT ${columns} FROM ${sql.from} ${items} WHERE ${sql.where()} ORDER BY ${order} LIMIT ${take}`));
  } else {
    const order = `${key ? `${key} ${keyDir}, ` : ""}${sql.rank} ${rankDir}`;
    const one = sortKey(sql, q.sort, true).key;
    const c = `SELECT ${one ?? "0"} AS k, ${sql.rank} AS r FROM ${sql.from} WHERE p.handle = ${sql.params.add(cursor)} AND ${sql.where(true)}`;
    // The cursor row itself comes first (same key, same rank), which proves it is a match.
    // The first conjunct is redundant but gives the sort's index a place to start, so a deep
    // page seeks to the cursor instead of walking the index from its first entry.
    const beyond = key
      ? `${key} ${keyDir === "ASC" ? ">=" : "<="} c.k AND (${key} ${keyDir === "ASC" ? ">" : "<"} c.k OR (${key} = c.k AND ${sql.rank} ${backwards ? "<=" : ">="} c.r))`
      : `${sql.rank} ${backwards ? "<=" : ">="} c.r`;
    statements.push(statement(sql, `WITH c AS (${c}) SELECT ${columns} FROM ${sql.from} ${items}, c WHERE ${sql.where()} AND ${beyond} ORDER BY ${order} LIMIT ${take}`));
  }

  const results = await store.batch(statements);
  const header = checkPreamble(scope, q, results);
  let rows = (results.at(-1) ?? []) as unknown as PageRow[];
  let total = scope.collection === undefined ? meta.products : (header?.n ?? 0);
  if (filtered) {
    total = Number((rows[0] as unknown as { n: number } | undefined)?.n ?? 0);
    rows = rows.slice(1);
  }
  if (cursor !== undefined) {
    if (rows[0]?.handle !== cursor) {
      const param = backwards ? "ending_before" : "starting_after";
      throw invalidParameter(`No product with handle "${cursor}" among the matches of this query.`, param);
    }
    rows = rows.slice(1);
  }
  const hasMore = rows.length > q.limit;
  rows = rows.slice(0, q.limit);
  if (backwards) rows.reverse();
  const list = listBody(total, rows.map((r) => itemLine(r, scope, q.image)), hasMore);
  if (scope.collection === undefined || !header) return list;
  return `{"object":"collection","handle":${JSON.stringify(scope.collection)},"title":${JSON.stringify(header.title)},"products_count":${header.n},"products":${list}}`;
}
