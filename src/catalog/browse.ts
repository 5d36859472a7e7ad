import { type BrowseTable, browseTable, optionFacet } from "./browse-layout.ts";
import { type Facet, facetsBody, facetValues, MAX_FACET_VALUES, priceFacet } from "./browse-facets.ts";
import { type BrowseFilters, type BrowsePageQuery, hasFilters, type Sort, type ValueFilter } from "./browse-query.ts";
import { CatalogError, invalidParameter, notFound, unknownParameter } from "./errors.ts";
import type { VersionMeta } from "./layout.ts";
import { listBody } from "./pages.ts";

/**
 * Search, filters, sorts and facet counts over a version's browse index in D1 (layout in
 * browse-layout.ts; the decision and its numbers at the top of src/publish/browse-index.ts).
 *
 * Cost of one answer, whatever the catalog size: ONE D1 batch (one round trip).
 * - a page: at most 4 statements (collection header, count, option names, the page), returning
 *   at most limit + 2 rows plus one row each for the others;
 * - facets: at most 14 statements (header, count, vendor, product_type, tag, available, price,
 *   option names, the options without a filter, one per filtered option), returning at most
 *   100 values per facet plus the selected ones; without any filter or `q`, one statement
 *   returning one row (the scope's facets, counted at publish).
 * Only counting (count, facet counts, relevance) visits every match; a page read in a sort's
 * own order without filters visits limit + 2 rows through that sort's index.
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

/** A filter that facets leave out of their own counts. */
type Except = ValueFilter | "available" | "price" | `option.${string}` | null;

/** `"w1" "w2" "last"*`: every word, the last as a prefix (words are letters and digits only). */
function matchText(words: readonly string[], column?: "t"): string {
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
   * Every active filter but `except`, joined with AND. Filters on other tables (q, tag, options)
   * become one `p.id IN (a INTERSECT b ...)`: given as separate IN lists, SQLite walks their
   * cross product; one intersected list drives the lookup instead. For one row (the cursor)
   * each is an EXISTS probe on its index.
   */
  where(except: Except, one = false): string {
    const f = this.filters;
    const parts = [this.scoped];
    const sets: [idColumn: string, sub: string][] = [];
    if (f.words.length > 0) sets.push(["rowid", `FROM ${this.t("s")} WHERE ${this.t("s")} MATCH ${this.params.add(matchText(f.words))}`]);
    if (f.available !== undefined && except !== "available") parts.push(`p.avail = ${f.available ? 1 : 0}`);
    if (f.vendor && except !== "vendor") parts.push(`p.vendor IN (${this.params.list(f.vendor)})`);
    if (f.product_type && except !== "product_type") parts.push(`p.ptype IN (${this.params.list(f.product_type)})`);
    if (f.tag && except !== "tag") sets.push(["pid", `FROM ${this.t("v")} WHERE f = 'tag' AND k IN (${this.params.list(f.tag)})`]);
    for (const [name, keys] of f.options) {
      if (except === `option.${name}`) continue;
      sets.push(["pid", `FROM ${this.t("v")} WHERE f = ${this.params.add(optionFacet(name))} AND k IN (${this.params.list(keys)})`]);
    }
    if (one) for (const [id, sub] of sets) parts.push(`EXISTS (SELECT 1 ${sub} AND ${id} = p.id)`);
    else if (sets.length > 0) parts.push(`p.id IN (${sets.map(([id, sub]) => `SELECT ${id} ${sub}`).join(" INTERSECT ")})`);
    if (f.price_min !== undefined && except !== "price") parts.push(`p.price >= ${this.params.add(f.price_min)}`);
    if (f.price_max !== undefined && except !== "price") parts.push(`p.price <= ${this.params.add(f.price_max)}`);
    return parts.join(" AND ");
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
      // A version published without its index (or whose index was dropped under the reader).
      if (error instanceof Error && /no such table/.test(error.message)) {
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
  const count = new BrowseSql(meta.version, scope, q);
  if (filtered) statements.push(statement(count, `SELECT count(*) AS n FROM ${count.from} WHERE ${count.where(null)}`));

  const sql = new BrowseSql(meta.version, scope, q);
  const { key, desc } = sortKey(sql, q.sort, false);
  const cursor = q.starting_after ?? q.ending_before;
  const backwards = q.ending_before !== undefined;
  // Paging backwards reads the same order reversed, then turns the page round.
  const keyDir = desc !== backwards ? "DESC" : "ASC";
  const rankDir = backwards ? "DESC" : "ASC";
  const order = `${key ? `${key} ${keyDir}, ` : ""}${sql.rank} ${rankDir}`;
  const columns = "p.handle AS handle, p.item AS item, p.avail AS avail, p.img AS img";
  if (cursor === undefined) {
    statements.push(statement(sql, `SELECT ${columns} FROM ${sql.from} WHERE ${sql.where(null)} ORDER BY ${order} LIMIT ${sql.params.add(q.limit + 1)}`));
  } else {
    const one = sortKey(sql, q.sort, true).key;
    const c = `SELECT ${one ?? "0"} AS k, ${sql.rank} AS r FROM ${sql.from} WHERE p.handle = ${sql.params.add(cursor)} AND ${sql.where(null, true)}`;
    // The cursor row itself comes first (same key, same rank), which proves it is a match.
    // The first conjunct is redundant but gives the sort's index a place to start, so a deep
    // page seeks to the cursor instead of walking the index from its first entry.
    const beyond = key
      ? `${key} ${keyDir === "ASC" ? ">=" : "<="} c.k AND (${key} ${keyDir === "ASC" ? ">" : "<"} c.k OR (${key} = c.k AND ${sql.rank} ${backwards ? "<=" : ">="} c.r))`
      : `${sql.rank} ${backwards ? "<=" : ">="} c.r`;
    statements.push(
      statement(sql, `WITH c AS (${c}) SELECT ${columns} FROM ${sql.from}, c WHERE ${sql.where(null)} AND ${beyond} ORDER BY ${order} LIMIT ${sql.params.add(q.limit + 2)}`),
    );
  }

  const results = await store.batch(statements);
  const header = checkPreamble(scope, q, results);
  let rows = (results.at(-1) ?? []) as unknown as PageRow[];
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
  const total = filtered ? Number(results.at(-2)?.[0]?.n ?? 0) : scope.collection === undefined ? meta.products : (header?.n ?? 0);
  const list = listBody(total, rows.map((r) => itemLine(r, scope, q.image)), hasMore);
  if (scope.collection === undefined || !header) return list;
  return `{"object":"collection","handle":${JSON.stringify(scope.collection)},"title":${JSON.stringify(header.title)},"products_count":${header.n},"products":${list}}`;
}

interface CountRow {
  k: string | number;
  value: string;
  n: number;
  f?: string;
}

/** The window that keeps the best MAX_FACET_VALUES of each facet, plus the selected keys. */
function topValues(grouped: string, d: string, partition: boolean, selected: string): string {
  const over = `${partition ? "PARTITION BY g.f " : ""}ORDER BY g.n DESC, d.d`;
  return `SELECT ${partition ? "f, " : ""}k, value, n FROM (SELECT ${partition ? "g.f AS f, " : ""}g.k AS k, d.d AS value, g.n AS n, row_number() OVER (${over}) AS rk FROM (${grouped}) g JOIN ${d} d ON d.f = g.f AND d.k = g.k) WHERE rk <= ${MAX_FACET_VALUES}${selected ? ` OR k IN (${selected})` : ""}`;
}

/** `GET /products/facets` and `GET /collections/{handle}/facets`: disjunctive counts. */
export async function browseFacets(store: BrowseStore, meta: VersionMeta, scope: Scope, filters: BrowseFilters): Promise<string> {
  const v = meta.version;
  const statements = preamble(v, scope, filters);
  if (!hasFilters(filters)) {
    statements.push({ sql: `SELECT body FROM ${browseTable(v, "f")} WHERE scope = ?1`, params: [scope.collection ?? ""] });
    const results = await store.batch(statements);
    checkPreamble(scope, filters, results);
    const body = results.at(-1)?.[0]?.body;
    if (typeof body !== "string") throw new CatalogError("catalog_unavailable", "This catalog version has no browse index: publish the catalog again.");
    return body;
  }
  const d = browseTable(v, "d");
  // Value counts walk from the matching products (index on pid), so they cost what the matches do.
  const vt = `${browseTable(v, "v")} v INDEXED BY "bv_${v}_ivalues"`;
  const base = statements.length;
  const push = (build: (sql: BrowseSql) => string) => {
    const sql = new BrowseSql(v, scope, filters);
    statements.push(statement(sql, build(sql)));
  };
  const selectedOf = (sql: BrowseSql, keys: readonly string[] | undefined) => (keys && keys.length > 0 ? sql.params.list(keys) : "");
  push((s) => `SELECT count(*) AS n FROM ${s.from} WHERE ${s.where(null)}`);
  for (const [name, column] of [["vendor", "p.vendor"], ["product_type", "p.ptype"]] as const) {
    push((s) => {
      const grouped = `SELECT '${name}' AS f, ${column} AS k, count(*) AS n FROM ${s.from} WHERE ${s.where(name)}${name === "product_type" ? " AND p.ptype <> ''" : ""} GROUP BY ${column}`;
      return topValues(grouped, d, false, selectedOf(s, filters[name]));
    });
  }
  push((s) => {
    const grouped = `SELECT 'tag' AS f, v.k AS k, count(*) AS n FROM ${vt} WHERE v.f = 'tag' AND v.pid IN (SELECT p.id FROM ${s.from} WHERE ${s.where("tag")}) GROUP BY v.k`;
    return topValues(grouped, d, false, selectedOf(s, filters.tag));
  });
  push((s) => `SELECT p.avail AS k, count(*) AS n FROM ${s.from} WHERE ${s.where("available")} GROUP BY p.avail`);
  push((s) => `SELECT min(p.price) AS lo, max(p.price) AS hi FROM ${s.from} WHERE ${s.where("price")}`);
  statements.push({ sql: `SELECT name FROM ${browseTable(v, "o")} ORDER BY ord`, params: [] });
  const filteredFacets = filters.options.map(([name]) => optionFacet(name));
  push((s) => {
    const skip = filteredFacets.length > 0 ? ` AND v.f NOT IN (${s.params.list(filteredFacets)})` : "";
    const grouped = `SELECT v.f AS f, v.k AS k, count(*) AS n FROM ${vt} WHERE v.f >= 'o:' AND v.f < 'o;'${skip} AND v.pid IN (SELECT p.id FROM ${s.from} WHERE ${s.where(null)}) GROUP BY v.f, v.k`;
    return topValues(grouped, d, true, "");
  });
  for (const [name, keys] of filters.options) {
    push((s) => {
      const grouped = `SELECT v.f AS f, v.k AS k, count(*) AS n FROM ${vt} WHERE v.f = ${s.params.add(optionFacet(name))} AND v.pid IN (SELECT p.id FROM ${s.from} WHERE ${s.where(`option.${name}`)}) GROUP BY v.k`;
      return topValues(grouped, d, false, selectedOf(s, keys));
    });
  }

  const results = await store.batch(statements);
  checkPreamble(scope, filters, results);
  const r = results.slice(base);
  const rows = (i: number) => (r[i] ?? []) as unknown as CountRow[];
  const given = (facet: string) => (key: string) => filters.given.get(`${facet}\u0000${key}`) ?? key;
  const counted = (list: readonly CountRow[]) => list.map((row) => ({ key: String(row.k), value: row.value, count: row.n }));
  const facets: Facet[] = [
    { name: "vendor", values: facetValues(counted(rows(1)), filters.vendor, given("vendor")) },
    { name: "product_type", values: facetValues(counted(rows(2)), filters.product_type, given("product_type")) },
    { name: "tag", values: facetValues(counted(rows(3)), filters.tag, given("tag")) },
    {
      name: "available",
      values: facetValues(
        rows(4).map((row) => ({ key: row.k ? "true" : "false", value: row.k ? "true" : "false", count: row.n })),
        filters.available === undefined ? [] : [String(filters.available)],
      ),
    },
  ];
  const price = rows(5)[0] as unknown as { lo: number | null; hi: number | null } | undefined;
  const names = rows(6).map((row) => (row as unknown as { name: string }).name);
  const rest = rows(7);
  for (const name of names) {
    const facet = optionFacet(name);
    const at = filters.options.findIndex(([n]) => n === name);
    const list = at < 0 ? rest.filter((row) => row.f === facet) : rows(8 + at);
    facets.push({ name: `option.${name}`, values: facetValues(counted(list), at < 0 ? [] : filters.options[at]?.[1], given(`option.${name}`)) });
  }
  facets.push(priceFacet(price?.lo ?? null, price?.hi ?? null));
  return facetsBody(Number(rows(0)[0]?.n ?? 0), facets);
}
