import { browseTable } from "./browse-layout.ts";
import { type BrowseStore, matchText } from "./browse.ts";
import type { FacetColumns, FacetValueRow } from "./facet-index.ts";

/**
 * What FacetIndex is built from, read out of a version's browse index in D1 (layout in
 * browse-layout.ts): ONE batch of 8 statements, once per version per FacetCounter instance.
 * Id lists come as comma-separated text, at most CHUNK ids a row, so no row nears D1's 2 MB
 * limit whatever the catalog size and the runtime builds one string per row, not one object
 * per id. At 100,000 products: ~3,300 rows, ~7 MB of text (figures in README, "Facet counts").
 */

/** Ids per row of an id list (ids are grouped by `id >> CHUNK_BITS`). */
const CHUNK_BITS = 12;

function ids(text: unknown): Uint32Array {
  if (typeof text !== "string" || text === "") return new Uint32Array(0);
  const parts = text.split(",");
  const out = new Uint32Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}

/** Calls `visit(key, value)` for each `key:value` of a comma-separated list of integer pairs. */
function eachPair(text: unknown, visit: (key: number, value: number) => void): void {
  for (const pair of String(text).split(",")) {
    const colon = pair.indexOf(":");
    visit(Number(pair.slice(0, colon)), Number(pair.slice(colon + 1)));
  }
}

/** Concatenates the id lists of each key, in the order they come. */
function grouped(rows: Record<string, unknown>[], key: string): Map<unknown, Uint32Array> {
  const parts = new Map<unknown, Uint32Array[]>();
  for (const row of rows) {
    const list = parts.get(row[key]) ?? [];
    list.push(ids(row.ids));
    parts.set(row[key], list);
  }
  const out = new Map<unknown, Uint32Array>();
  for (const [k, lists] of parts) {
    const all = new Uint32Array(lists.reduce((n, l) => n + l.length, 0));
    let at = 0;
    for (const l of lists) {
      all.set(l, at);
      at += l.length;
    }
    out.set(k, all);
  }
  return out;
}

export async function readFacetColumns(store: BrowseStore, version: string): Promise<FacetColumns> {
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(version, name);
  const chunk = (column: string) => `${column} >> ${CHUNK_BITS}`;
  const statements = [
    `SELECT id, f, k, d FROM ${t("d")} ORDER BY id`,
    `SELECT name FROM ${t("o")} ORDER BY ord`,
    `SELECT coalesce(max(id) + 1, 0) AS size FROM ${t("p")}`,
    `SELECT group_concat(id || ':' || price) AS ids FROM ${t("p")} GROUP BY ${chunk("id")}`,
    // Tags and options are in `v`; vendor, product type and availability are columns of `p`.
    `SELECT vid, group_concat(pid) AS ids FROM ${t("v")} GROUP BY vid, ${chunk("pid")}`,
    `SELECT d.id AS vid, group_concat(p.id) AS ids FROM ${t("p")} p JOIN ${t("d")} d ON d.f = 'vendor' AND d.k = p.vendor GROUP BY p.vendor, ${chunk("p.id")}`,
    `SELECT d.id AS vid, group_concat(p.id) AS ids FROM ${t("p")} p JOIN ${t("d")} d ON d.f = 'product_type' AND d.k = p.ptype GROUP BY p.ptype, ${chunk("p.id")}`,
    `SELECT d.id AS vid, group_concat(p.id) AS ids FROM ${t("p")} p JOIN ${t("d")} d ON d.f = 'available' AND d.k = iif(p.avail, 'true', 'false') GROUP BY p.avail, ${chunk("p.id")}`,
    `SELECT c.handle AS c, group_concat(m.pid) AS ids FROM ${t("c")} c LEFT JOIN ${t("m")} m ON m.c = c.handle AND m.pid >= 0 GROUP BY c.handle, ${chunk("coalesce(m.r, 0)")}`,
  ];
  const [values = [], options = [], size = [], prices = [], ...rest] = await store.batch(statements.map((sql) => ({ sql, params: [] })));
  const members = rest.pop() ?? [];
  const n = Number(size[0]?.size ?? 0);
  const byValue = grouped(rest.flat(), "vid");
  const priceOf = new Float64Array(n).fill(Number.NaN);
  for (const row of prices) {
    eachPair(row.ids, (id, price) => {
      priceOf[id] = price;
    });
  }
  return {
    size: n,
    values: values.map((row) => ({ f: String(row.f), k: String(row.k), d: String(row.d) }) satisfies FacetValueRow),
    postings: values.map((row) => byValue.get(row.id) ?? new Uint32Array(0)),
    prices: priceOf,
    options: options.map((row) => String(row.name)),
    collections: grouped(members, "c") as Map<string, Uint32Array>,
  };
}

/**
 * The products `q`'s words match (full-text, as a page's q filter), as a bitmap of `size`
 * products: one statement returning one 32-bit word per 32 products holding a match (at most
 * size / 32 words, as `word:bits` text), not one id per match.
 */
export async function searchMatches(store: BrowseStore, version: string, words: readonly string[], size: number): Promise<Uint32Array> {
  const s = browseTable(version, "s");
  const bitsOf = `SELECT rowid >> 5 AS w, sum(1 << (rowid & 31)) AS b FROM ${s} WHERE ${s} MATCH ?1 GROUP BY w`;
  const [rows = []] = await store.batch([{ sql: `SELECT group_concat(w || ':' || b) AS words FROM (${bitsOf}) GROUP BY w >> ${CHUNK_BITS}`, params: [matchText(words)] }]);
  const bits = new Uint32Array((size + 31) >>> 5);
  for (const row of rows) {
    eachPair(row.words, (w, word) => {
      if (w < bits.length) bits[w] = word;
    });
  }
  return bits;
}
