/**
 * The browse index of one catalog version in D1, shared by the writer (src/publish/browse-index.ts)
 * and the reader (browse-source.ts, which loads it whole into a version's BrowseEngine) so the
 * two cannot disagree. Every table name holds the version, so
 * a version's index is written before the KV pointer switches to it, a rollback finds the
 * previous version's index still there, and a stale version is dropped table by table.
 *
 * | table | rows | what for |
 * |---|---|---|
 * | `p` | one per product: id = catalog position, handle, lowest price (minor), available, title sort key, created_at (ms), vendor and type keys, product id (gid) | single-value filters, the sort keys; a change batch's check of product ids |
 * | `i` | one per product: id, the list item JSON, the featured image JSON | the pages' items |
 * | `m` | collection, rank, product: one per membership | a collection's products in its order |
 * | `d` | value id, facet (`vendor`, `product_type`, `tag`, `available`, `o:<option>`), value key, the value as first spelled in the catalog | a filter value's id, facet values as shown |
 * | `v` | value id, product: one per tag and per option value (options only from available variants) | tag and option postings |
 * | `u` | value id, product: an option value the product declares that no available variant of it offers | with `v`, every product declaring a value (a change batch's first spelling) |
 * | `o` | option API name, order of first appearance | the option facets, unknown option filters |
 * | `x` | search word, the products having it in any field (title, vendor, type, tags, option values, SKUs, description text; synonyms added, stop words left out) as comma-separated ids (ascending, at most WORD_IDS a row), and what the word's weight in each is made of (text.ts packWeight; with `g` absent, as before issue 45: the weight itself, 1..65535, or 1..255 before 2026-11-27), comma-separated in the same order | `q` and its relevance |
 * | `l` | one per product: id, the lengths of its title and description (search words, stop words aside) | a weight's length normalisation (text.ts packedWeight) |
 * | `g` | `weights` = `packed`: this layout's marker; `settings`: the catalog's fields but its products and collections (JSON) | which `x` a reader holds; what a change batch is checked and indexed with |
 * | `s` | a change batch's layer only (browse/overlay.ts): id, the product's slot in the catalog | its products' catalog order |
 * | `z` | the catalog's stop words (folded), never indexed, left out of q | `q` |
 * | `c` | collection handle, title, product count | a collection's header, and whether it exists |
 */
import { VERSION_NAME } from "../version-name.ts";

export const BROWSE_TABLES = ["p", "i", "m", "v", "u", "d", "o", "x", "l", "g", "z", "c", "s"] as const;
/**
 * Tables older layouts wrote and this one does not, still named so a stale version's are found
 * and dropped: `f` (facets counted at publish), `b` (value bitmaps for SQL pages), `w` (words per
 * title/other column, without weights: replaced by `x`). (`s` was FTS5 for q; it is a layer's
 * slots now, in BROWSE_TABLES.) Browse is answered in
 * memory now (BrowseEngine), which needs none of them.
 */
export const RETIRED_TABLES = ["f", "b", "w"] as const;
export type BrowseTable = (typeof BROWSE_TABLES)[number] | (typeof RETIRED_TABLES)[number];

const VERSION = VERSION_NAME;

/** A quoted table name of a version's index: `"bv_<version>_<t>"`. */
export function browseTable(version: string, table: BrowseTable): string {
  if (!VERSION.test(version)) throw new Error(`Not a catalog version name: ${version}`);
  return `"bv_${version}_${table}"`;
}

/** The version a browse table belongs to, from its bare name; null for any other table (FTS5 shadows included). */
export function browseTableVersion(name: string): string | null {
  const match = /^bv_([A-Za-z0-9_-]{1,64})_([a-z])$/.exec(name);
  return match && ([...BROWSE_TABLES, ...RETIRED_TABLES] as readonly string[]).includes(match[2] ?? "")
    ? (match[1] ?? null)
    : null;
}

/** Product ids per row of an `x` word's list (rows are read 128 at a time: at most ~230 KB). */
export const WORD_IDS = 256;

/** A product without `created_at` sorts after every dated one under `newest`. */
export const UNDATED = -9e15;

/** The statements creating a version's tables (indexes come after the rows, see indexSql). */
export function createSql(version: string): string[] {
  const t = (name: BrowseTable) => browseTable(version, name);
  return [
    `CREATE TABLE ${t("p")} (id INTEGER PRIMARY KEY, handle TEXT NOT NULL, price INTEGER NOT ` +
      `NULL, avail INTEGER NOT NULL, tkey TEXT NOT NULL, created INTEGER NOT NULL, vendor TEXT ` +
      `NOT NULL, ptype TEXT NOT NULL, gid TEXT NOT NULL)`,
    `CREATE TABLE ${t("i")} (id INTEGER PRIMARY KEY, item TEXT NOT NULL, img TEXT NOT NULL)`,
    `CREATE TABLE ${t("m")} (c TEXT NOT NULL, r INTEGER NOT NULL, pid INTEGER NOT NULL, ` +
      `PRIMARY KEY (c, r)) WITHOUT ROWID`,
    `CREATE TABLE ${t("v")} (vid INTEGER NOT NULL, pid INTEGER NOT NULL, PRIMARY KEY (vid, pid)) WITHOUT ROWID`,
    `CREATE TABLE ${t("u")} (vid INTEGER NOT NULL, pid INTEGER NOT NULL, PRIMARY KEY (vid, pid)) WITHOUT ROWID`,
    `CREATE TABLE ${t("d")} (id INTEGER PRIMARY KEY, f TEXT NOT NULL, k TEXT NOT NULL, d TEXT NOT NULL)`,
    `CREATE TABLE ${t("o")} (name TEXT PRIMARY KEY, ord INTEGER NOT NULL) WITHOUT ROWID`,
    `CREATE TABLE ${t("x")} (k TEXT NOT NULL, ids TEXT NOT NULL, wts TEXT NOT NULL)`,
    `CREATE TABLE ${t("l")} (id INTEGER PRIMARY KEY, tl INTEGER NOT NULL, dl INTEGER NOT NULL)`,
    `CREATE TABLE ${t("g")} (k TEXT PRIMARY KEY, v TEXT NOT NULL) WITHOUT ROWID`,
    `CREATE TABLE ${t("z")} (k TEXT PRIMARY KEY) WITHOUT ROWID`,
    `CREATE TABLE ${t("c")} (handle TEXT PRIMARY KEY, title TEXT NOT NULL, n INTEGER NOT NULL) WITHOUT ROWID`,
  ];
}

/**
 * Indexes, built once the rows are in (faster than keeping them up to date row by row). Only
 * what the engine's one read of the index joins on, and the handle's uniqueness; the unique
 * handle index comes last, so its presence says the version's index is complete.
 */
export function indexSql(version: string): string[] {
  const name = (suffix: string) => `"bv_${version}_i${suffix}"`;
  return [
    `CREATE UNIQUE INDEX ${name("value")} ON ${browseTable(version, "d")} (f, k)`,
    `CREATE UNIQUE INDEX ${name("gid")} ON ${browseTable(version, "p")} (gid)`,
    // A change batch finds the first product of a vendor or type (its spelling) without a scan.
    `CREATE INDEX ${name("vendor")} ON ${browseTable(version, "p")} (vendor)`,
    `CREATE INDEX ${name("ptype")} ON ${browseTable(version, "p")} (ptype)`,
    `CREATE UNIQUE INDEX ${name("handle")} ON ${browseTable(version, "p")} (handle)`,
  ];
}

/** The last index indexSql creates: present once a version's index is whole. */
export function lastIndexName(version: string): string {
  return `bv_${version}_ihandle`;
}

/** The facet name of an option in the `d` table: `o:<api name>`. */
export function optionFacet(name: string): string {
  return `o:${name}`;
}
