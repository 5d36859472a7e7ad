/**
 * The browse index of one catalog version in D1, shared by the writer (src/publish/browse-index.ts)
 * and the reader (browse.ts) so the two cannot disagree. Every table name holds the version, so
 * a version's index is written before the KV pointer switches to it, a rollback finds the
 * previous version's index still there, and a stale version is dropped table by table.
 *
 * | table | rows | what for |
 * |---|---|---|
 * | `p` | one per product: id = catalog position, handle, lowest price (minor), available, title sort key, created_at (ms), vendor and type keys | every filter on a single value, every sort, counting; narrow, so visiting every match reads few pages |
 * | `i` | one per product: id, the list item JSON, the featured image JSON | the page's items, read for the page's rows only |
 * | `m` | collection, rank, product: one per membership | a collection's products in its order |
 * | `d` | value id, facet (`vendor`, `product_type`, `tag`, `available`, `o:<option>`), value key, the value as first spelled in the catalog | a filter value's id, facet values as shown |
 * | `v` | value id, product: one per tag and per option value (options only from available variants) | tag and option filters probed one product at a time, their facet counts |
 * | `b` | value id, block, bits: the products having a value as a bitmap, bit `id % BLOCK` of block `id / BLOCK` (every facet value, `available` too) | counting the matches of value filters as a few thousand bitwise ANDs, and testing one product against all of them with one lookup |
 * | `o` | option API name, order of first appearance | the option facets, unknown option filters |
 * | `s` | FTS5, rowid = product id; `t` the title's words, `r` vendor, type, tags, option values, SKUs | `q` |
 * | `c` | collection handle, title, product count | a collection's header, and whether it exists |
 */

export const BROWSE_TABLES = ["p", "i", "m", "v", "d", "b", "o", "s", "c"] as const;
/**
 * Tables older layouts wrote and this one does not (`f`: facets answers counted at publish, now
 * counted by FacetCounter): still named here so a stale version's are found and dropped.
 */
export const RETIRED_TABLES = ["f"] as const;
export type BrowseTable = (typeof BROWSE_TABLES)[number] | (typeof RETIRED_TABLES)[number];

const VERSION = /^[A-Za-z0-9_-]{1,64}$/;

/** A quoted table name of a version's index: `"bv_<version>_<t>"`. */
export function browseTable(version: string, table: BrowseTable): string {
  if (!VERSION.test(version)) throw new Error(`Not a catalog version name: ${version}`);
  return `"bv_${version}_${table}"`;
}

/** The version a browse table belongs to, from its bare name; null for any other table (FTS5 shadows included). */
export function browseTableVersion(name: string): string | null {
  const match = /^bv_([A-Za-z0-9_-]{1,64})_([a-z])$/.exec(name);
  return match && ([...BROWSE_TABLES, ...RETIRED_TABLES] as readonly string[]).includes(match[2] ?? "") ? (match[1] ?? null) : null;
}

/**
 * Products per bitmap word in `b`: 62, so a word is a non-negative 64-bit integer and its
 * popcount (at most 62) fits the mod-63 sum of popcountSql.
 */
export const BLOCK = 62;

/**
 * The number of set bits of a non-negative integer of at most 62 bits, as SQL over the
 * expression `w` (a column reference: it is repeated six times). Counts of 3 bits, then of 6,
 * then the 6-bit counts summed by a remainder (64 = 1 mod 63): SQLite has no popcount.
 */
export function popcountSql(w: string): string {
  const x = `(${w} - ((${w} >> 1) & 3952873730080618203) - ((${w} >> 2) & 1317624576693539401))`;
  return `(((${x} + (${x} >> 3)) & 8198552921648689607) % 63)`;
}

/** A product without `created_at` sorts after every dated one under `newest`. */
export const UNDATED = -9e15;

/** The statements creating a version's tables (indexes come after the rows, see indexSql). */
export function createSql(version: string): string[] {
  const t = (name: BrowseTable) => browseTable(version, name);
  return [
    `CREATE TABLE ${t("p")} (id INTEGER PRIMARY KEY, handle TEXT NOT NULL, price INTEGER NOT NULL, avail INTEGER NOT NULL, tkey TEXT NOT NULL, created INTEGER NOT NULL, vendor TEXT NOT NULL, ptype TEXT NOT NULL)`,
    `CREATE TABLE ${t("i")} (id INTEGER PRIMARY KEY, item TEXT NOT NULL, img TEXT NOT NULL)`,
    `CREATE TABLE ${t("m")} (c TEXT NOT NULL, r INTEGER NOT NULL, pid INTEGER NOT NULL, PRIMARY KEY (c, r)) WITHOUT ROWID`,
    `CREATE TABLE ${t("v")} (vid INTEGER NOT NULL, pid INTEGER NOT NULL, PRIMARY KEY (vid, pid)) WITHOUT ROWID`,
    `CREATE TABLE ${t("d")} (id INTEGER PRIMARY KEY, f TEXT NOT NULL, k TEXT NOT NULL, d TEXT NOT NULL)`,
    `CREATE TABLE ${t("b")} (vid INTEGER NOT NULL, blk INTEGER NOT NULL, bits INTEGER NOT NULL, PRIMARY KEY (vid, blk)) WITHOUT ROWID`,
    `CREATE TABLE ${t("o")} (name TEXT PRIMARY KEY, ord INTEGER NOT NULL) WITHOUT ROWID`,
    `CREATE VIRTUAL TABLE ${t("s")} USING fts5(t, r, content='', detail=column, tokenize='ascii')`,
    `CREATE TABLE ${t("c")} (handle TEXT PRIMARY KEY, title TEXT NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID`,
  ];
}

/** Indexes, built once the rows are in (faster than keeping them up to date row by row). */
export function indexSql(version: string): string[] {
  const p = browseTable(version, "p");
  const m = browseTable(version, "m");
  const name = (suffix: string) => `"bv_${version}_i${suffix}"`;
  return [
    `CREATE UNIQUE INDEX ${name("handle")} ON ${p} (handle)`,
    // Every sort is (key, catalog position) in one direction or another: one index per order,
    // so an unfiltered sorted page reads limit + 1 rows in index order instead of sorting them all.
    `CREATE INDEX ${name("price")} ON ${p} (price, id)`,
    `CREATE INDEX ${name("pricedesc")} ON ${p} (price DESC, id)`,
    `CREATE INDEX ${name("title")} ON ${p} (tkey, id)`,
    `CREATE INDEX ${name("titledesc")} ON ${p} (tkey DESC, id)`,
    `CREATE INDEX ${name("newest")} ON ${p} (created DESC, id)`,
    `CREATE INDEX ${name("vendor")} ON ${p} (vendor, id)`,
    `CREATE INDEX ${name("ptype")} ON ${p} (ptype, id)`,
    // Facet counts walk from the matching products to their values.
    `CREATE INDEX ${name("values")} ON ${browseTable(version, "v")} (pid, vid)`,
    `CREATE UNIQUE INDEX ${name("value")} ON ${browseTable(version, "d")} (f, k)`,
    `CREATE UNIQUE INDEX ${name("member")} ON ${m} (c, pid)`,
  ];
}

/** The facet name of an option in the `d` table: `o:<api name>`. */
export function optionFacet(name: string): string {
  return `o:${name}`;
}
