import { BROWSE_TABLES, browseTable, browseTableVersion, createSql, indexSql, lastIndexName, optionFacet, RETIRED_TABLES, UNDATED, WORD_IDS } from "../catalog/browse-layout.ts";
import { browseSnapshotKey, browseSnapshotVersion, encodeSnapshot, SNAPSHOT_CHUNK, type SnapshotManifest } from "../catalog/browse-snapshot.ts";
import { type BrowseReader, BrowseStore, readBrowseData } from "../catalog/browse-source.ts";
import { foldText, SEARCH_FIELDS, searchWords, valueKey, wordWeight } from "../catalog/browse-text.ts";
import { VersionIndex } from "../catalog/version-index.ts";
import { renderListItem } from "../catalog/render.ts";
import { optionApiName, type SourceCatalog, type SourceProduct } from "../catalog/schema.ts";
import { toMinor } from "../money.ts";
import { productRecord } from "./build.ts";
import { featuredImage } from "./content.ts";
import { prepareContent } from "./sanitize.ts";

/**
 * The browse index of a catalog version (layout in src/catalog/browse-layout.ts), as SQL text:
 * the same statements feed a D1 binding (tests, `npm run dev`, the bench) and
 * `wrangler d1 execute --remote --file`. Values are written as SQL literals, not bound, because
 * D1 binds at most 100 parameters per statement; rows are grouped into INSERTs of about
 * STATEMENT_BYTES (D1's limit is 100 KB per statement) and at most STATEMENT_ROWS rows (a VALUES
 * list of ~10,000 short integer rows runs local D1 out of memory: SQLITE_NOMEM).
 *
 * What follows is the record of the decisions, oldest first; the last section is how it reads now.
 *
 * ## Why D1 and not precomputed KV entries (measured with test/catalog/browse-measure.ts)
 * Arbitrary filter combinations cannot be precomputed, so a KV design reads per-value posting
 * lists and intersects them: on the generated 100,000-product catalog a three-filter page
 * (vendor, tag, option.size) would read 454 KiB of posting lists and `q=washed tee` 131 KiB,
 * plus every candidate's sort key, and both grow with the catalog; the contract wants bytes
 * that do not. D1 (SQLite, FTS5 for q) answers each query in ONE batch returning at most
 * limit + 3 rows (browse.ts); only counting visits the matches. Local p50s at 100k when first
 * built (Node to Miniflare bindings, no edge cache, a loaded 2-core machine): sorted page
 * 6.8 ms, deep page 10 ms, three-filter sorted page 53 ms, q search 25 ms (48 ms for a
 * two-letter prefix), collection browse 28 ms, landing facets (one precomputed row) 18 ms,
 * filtered facets 560 ms; publish KV alone 69 s, KV + this index 122 s.
 *
 * ## Reworked for speed (`npm exec -- node test/catalog/browse-measure.ts 100000`)
 * Same setup; one D1 round trip of `SELECT 1` costs 4.9 ms there. p50 before -> after:
 * three-filter sorted page 55 -> 29 ms (the bench's, on the largest vendor: 39), q search
 * 28 -> 18 ms (`q=ho` 48 -> 24), collection browse 29 -> 17 ms, sorted page 7.6 -> 6.0 ms,
 * landing facets 6.6 -> 5.1 ms, facets with one filter value (now counted at publish, one
 * row) 120-160 -> 10.6 ms, facets `tag=new&option.size=M` 403 -> 242 ms (the bench's three
 * filters: 204 ms). What changed: facets count the matches of every filter once for all the
 * unfiltered facets (a materialized CTE) plus one statement per filtered facet, instead of 14
 * statements each finding the matches again; a filtered page finds its matches once for the
 * count and the page, as narrow rows, and reads item JSON (moved to table `i`) for the page's
 * rows only; the first of the q/tag/option filters drives and the others are primary-key
 * probes, instead of an INTERSECT that sorted every posting list. What remains is counting,
 * which visits every match: ~25,000 matches with ~8 values each cost 50-100 ms of SQLite
 * GROUP BY per match set, so multi-filter facets over large match sets stay well above a page.
 *
 * Publish at 100k, same script (KV alone, then KV + this index as a second version): before
 * 57 s / 76 s, Node peak RSS 2,467 MiB; after 31 s / 38 s, 1,979 MiB (the script also holds
 * the generated catalog, ~490 MiB). The index is written beside the KV entries rather than
 * after them (publish.ts); its SQL takes ~3 s of Node time at 100k, its writes ~7 s.
 *
 * ## Value ids and bitmaps (issue 11)
 * Statement CPU at 100k in node:sqlite (SQLite 3.53.4, the version workerd embeds), before ->
 * after: the bench's page (vendor, tag, size M, price_asc) 25.9 -> 2.1 ms (counted from the
 * `b` words, read by walking the price index), q=hood 9.5 -> 1.7 ms (read straight from FTS5 in
 * rowid order), the bench's facets 167 -> 147 ms. Facets stay bound by counting: 12,187 matches
 * times their values (137,000 pairs) plus three match sets of 24-32k for the disjunctive counts;
 * SQLite spends ~0.3 us per (match, value) pair or per bitmap word (a one-pass bitmap prototype:
 * 83 ms). Writing the index into that file: 19.1 -> 9.9 s, 109 -> 96 MB.
 *
 * ## Facets left SQL (FacetCounter, src/catalog/facet-index.ts)
 * Facet counts are now tallied in memory by one Durable Object per version, built from these
 * tables (facet-source.ts): the bench's facets 147 ms of SQLite -> 1.8 ms. So the `f` table
 * (landing facets and every single-value filter's facets, counted here at publish) is no longer
 * written.
 *
 * ## Everything left SQL (BrowseEngine, src/catalog/version-index.ts)
 * Pages and q then moved into the same object, now named BrowseEngine: on a true miss at 100k
 * (bench, no memos, 10 in flight) the page was 4.25x a plain first page and q 3.42x, because
 * every D1 round trip cost 1.5-3 ms of CPU in workerd (the binding's JSON, the D1 object), more
 * than the whole plain page. The engine reads this index whole once per version (items too,
 * packed as UTF-8) and answers from memory: the page 0.72-0.93x, q 0.69-0.89x. So the reader
 * needs no SQL index any more: the FTS5 table `s` gave way to `w` (each search word with its
 * products), the value bitmaps `b` and the sort and lookup indexes are no longer written.
 *
 * ## Known sets (src/catalog/facet-index.ts)
 * What `f` once precomputed, the engine now keeps on first use: the counts of every value over
 * a one-value filter or a collection on more than 1/32 of the products, and over the catalog.
 * A set holding most of one of those is counted as that set's counts minus its other products:
 * at 100k, facets of available=true 2.3 ms -> 65 us, tag=new 1.9 ms -> 0.1 ms, a 25,000-product
 * collection 0.7 -> 0.1 ms (Node, test/catalog/browse-measure.ts); the bench's three filters
 * are unchanged (~0.9 ms: no known set holds much more than their matches).
 *
 * ## Relevance, typos, descriptions, synonyms (issue 24; src/catalog/text-index.ts)
 * `w` (a title and an other-fields id list per word) gave way to `x`: one id list per word over
 * every field, the description text included, with the word's BM25F weight in each product
 * (browse-text.ts wordWeight, one byte), so relevance is idf x weight summed over q's words, with
 * no per-field lists to merge at query time. Synonyms are applied here (a field holding one
 * phrase of a group gains the words of the others), stop words are left out and listed in `z`
 * for the reader to drop from q. Typos are found at query time by scanning the words of near
 * lengths whose letters nearly agree (a 32-bit letter mask), not stored. At 100k (generated,
 * seed 1) the engine holds 69.7 MiB of typed arrays, 58.8 without descriptions searched (57
 * before): descriptions cost 10.9 MiB; building this index reads each description's text again
 * (sanitize-html), ~2x the SQL time of the index. Side by side with Orama 3.1.18 on that catalog
 * (test/bench/search-vs-orama.ts, p50 of a first page of 10, a shared 2-core machine under load
 * 16): one word 0.77 vs 548 ms, two words 1.9 vs 1,438 ms, a prefix 0.87 vs 4,386 ms (Orama's
 * typo shape at tolerance 2 had not finished one query set in 15 minutes). At 10k: one word 148x,
 * two words 612x, prefix 1,457x, typo 741x, description words 403x faster; a SKU 16 vs 10 us
 * (Orama looks the whole token up; q intersects its words, the rarest first) and synonyms 91 vs
 * 10 us (Orama finds nothing). Top-10 overlap is low (6-56%): most generated products tie on
 * score, and Orama breaks ties its own way; on the labelled seed queries
 * (test/catalog/search-labelled.ts) q puts an expected product in the top 3 for 38/38, Orama 27/38.
 *
 * ## Snapshots and replicas (issue 23)
 * A new engine read these tables whole before its first answer: 3.2-4.0 s at 100k locally,
 * paid after every publish, every eviction, and now by every replica (browse-engine.ts runs
 * BROWSE_REPLICAS per region). So each publish also writes a snapshot to R2
 * (src/catalog/browse-snapshot.ts): the BrowseData the engine would read from these tables,
 * read back from them with the engine's own reader (readBrowseData, so the two cannot drift;
 * a remote publish reads a node:sqlite copy of the same statements instead of the remote
 * database), plus the parts VersionIndex derives (sort orders, facet columns, rank tables),
 * encoded as named parts under a format number, 8 MiB chunks under a manifest. The engine
 * loads it in 1 + chunks reads and makes typed-array views of one buffer (figures in README,
 * "Browse", and the bench's cold-start table). D1 stays: it is the fallback for a version
 * without a snapshot (published before them, or a failed or damaged blob), the record the
 * snapshot is read back from, and what the other helpers' index work (text ranking) extends
 * first; dropping it would save ~7 s of a 100k publish but leave older versions (rollback)
 * without any index. R2 over KV chunks: one blob per version of 60-80 MiB at 100k is what R2 is
 * for (KV values stop at 25 MiB, and each would be a separate read).
 */

const STATEMENT_BYTES = 90_000;
const STATEMENT_ROWS = 4_000;

/** Where a browse index is written: a D1 binding, or a SQL file run by wrangler against the remote database. */
export interface BrowseTarget {
  /** Runs statements in order; a failure stops the publish before the pointer switch. */
  run(statements: readonly string[]): Promise<void>;
  /** The names of every table and index in the database (to find stale and complete versions). */
  tables(): Promise<string[]>;
  /** Where the version's snapshot goes (browse-snapshot.ts); without it the engines read D1. */
  snapshots?: SnapshotTarget;
}

/**
 * The snapshot side of a target: the written tables read back exactly as the engine reads D1
 * (readBrowseData, so the snapshot cannot drift from the D1 index), encoded, and stored.
 */
export interface SnapshotTarget {
  reader: BrowseReader;
  put(key: string, bytes: Uint8Array): Promise<void>;
  /** Every snapshot key, and a delete, to drop stale versions' snapshots; a target without them keeps them all. */
  keys?(): Promise<string[]>;
  delete?(keys: string[]): Promise<void>;
}

/** Writes `version`'s snapshot from its (already written) tables; returns its size in bytes. */
export async function writeBrowseSnapshot(target: SnapshotTarget, version: string): Promise<number> {
  const data = await readBrowseData(target.reader, version);
  // The derived parts too (BuiltParts): the engine then makes views, not sorts and columns.
  const bytes = encodeSnapshot({ ...data, built: new VersionIndex(data).built });
  await writeChunks(target, version, bytes);
  return bytes.byteLength;
}

/** Stores a snapshot's blob: its chunks, then its manifest (browse-snapshot.ts, browseSnapshotKey). */
export async function writeChunks(target: Pick<SnapshotTarget, "put">, version: string, bytes: Uint8Array): Promise<void> {
  const key = browseSnapshotKey(version);
  const chunks = Math.ceil(bytes.byteLength / SNAPSHOT_CHUNK);
  // Chunks first, the manifest last: a reader finds a manifest only once every chunk is there.
  for (let n = 0; n < chunks; n++) await target.put(`${key}/${n}`, bytes.subarray(n * SNAPSHOT_CHUNK, (n + 1) * SNAPSHOT_CHUNK));
  const manifest: SnapshotManifest = { bytes: bytes.byteLength, chunks };
  await target.put(key, new TextEncoder().encode(JSON.stringify(manifest)));
}

/** One row of `p` plus what the other tables need, computed once per product. */
interface Row {
  pos: number;
  product: SourceProduct;
  price: number;
  vendor: string;
  ptype: string;
  tags: string[];
  /** [facet, key] of options with an available variant. */
  optionKeys: [string, string][];
}

function literal(value: string | number | bigint): string {
  if (typeof value !== "string") return String(value);
  // Control characters (NUL above all) would end or bend a literal: those strings go as UTF-8 hex.
  if (/[\u0000-\u001f]/.test(value)) return `CAST(X'${[...new TextEncoder().encode(value)].map((b) => b.toString(16).padStart(2, "0")).join("")}' AS TEXT)`;
  return `'${value.replaceAll("'", "''")}'`;
}

/** `items.map(f)` made lazily, so rows become text one INSERT at a time, not all at once. */
function* each<T, R>(items: Iterable<T>, f: (item: T) => Iterable<R>): Generator<R> {
  for (const item of items) yield* f(item);
}

/** Multi-row INSERTs of about STATEMENT_BYTES, or STATEMENT_ROWS rows, each. */
function* inserts(table: string, columns: string, rows: Iterable<readonly (string | number | bigint)[]>): Generator<string> {
  const head = `INSERT INTO ${table} (${columns}) VALUES `;
  let parts: string[] = [];
  let size = head.length;
  for (const row of rows) {
    const tuple = `(${row.map(literal).join(",")})`;
    if (parts.length > 0 && (size + tuple.length > STATEMENT_BYTES || parts.length >= STATEMENT_ROWS)) {
      yield head + parts.join(",");
      parts = [];
      size = head.length;
    }
    parts.push(tuple);
    size += tuple.length + 1;
  }
  if (parts.length > 0) yield head + parts.join(",");
}

function listItem(p: SourceProduct, pos: number, currency: string): string {
  return JSON.stringify(renderListItem(productRecord(p, pos, {}, currency)));
}

function rowsOf(catalog: SourceCatalog): Row[] {
  return catalog.products.map((product, pos) => {
    const optionKeys = new Map<string, [string, string]>();
    for (const variant of product.variants) {
      if (!(product.available && variant.available)) continue;
      for (const option of product.options) {
        const value = variant.options[option.name];
        if (value === undefined) continue;
        const pair: [string, string] = [optionFacet(optionApiName(option.name)), valueKey(value)];
        optionKeys.set(pair.join("\u0000"), pair);
      }
    }
    return {
      pos,
      product,
      price: Math.min(...product.variants.map((v) => toMinor(v.price, catalog.currency))),
      vendor: valueKey(product.vendor),
      ptype: valueKey(product.product_type),
      tags: [...new Set(product.tags.map(valueKey))],
      optionKeys: [...optionKeys.values()],
    };
  });
}

/** The first spelling of every value key, per facet, in catalog order. */
function displays(rows: readonly Row[]): Map<string, string> {
  const shown = new Map<string, string>();
  const see = (facet: string, value: string) => {
    const id = `${facet}\u0000${valueKey(value)}`;
    if (!shown.has(id)) shown.set(id, value);
  };
  for (const { product } of rows) {
    see("vendor", product.vendor);
    if (product.product_type !== "") see("product_type", product.product_type);
    for (const tag of product.tags) see("tag", tag);
    for (const option of product.options) for (const value of option.values) see(optionFacet(optionApiName(option.name)), value);
  }
  return shown;
}

function optionNames(catalog: SourceCatalog): string[] {
  const names = new Set<string>();
  for (const p of catalog.products) for (const o of p.options) names.add(optionApiName(o.name));
  return [...names];
}

/** The search settings of a catalog, folded: synonym groups as word lists, stop words as a set. */
export interface SearchTerms {
  synonyms: string[][][];
  stop: Set<string>;
}

export function searchTerms(catalog: SourceCatalog): SearchTerms {
  const synonyms = (catalog.search?.synonyms ?? []).map((group) => group.map(searchWords).filter((words) => words.length > 0));
  return { synonyms, stop: new Set((catalog.search?.stop_words ?? []).flatMap(searchWords)) };
}

/** Whether `words` holds `phrase` as consecutive words. */
function holds(words: readonly string[], phrase: readonly string[]): boolean {
  outer: for (let i = 0; i + phrase.length <= words.length; i++) {
    for (let j = 0; j < phrase.length; j++) if (words[i + j] !== phrase[j]) continue outer;
    return true;
  }
  return false;
}

/**
 * A product's search words per field (SEARCH_FIELDS order), as word -> count, and each field's
 * length: stop words left out; a field holding one phrase of a synonym group gains every word of
 * the group's other phrases it lacks, once (its length unchanged).
 */
export function fieldWords(p: SourceProduct, description: string, terms: SearchTerms): { counts: Map<string, number>[]; lengths: number[] } {
  const texts: string[][] = [[p.title], [p.vendor], [p.product_type], p.tags, p.options.flatMap((o) => o.values), p.variants.map((v) => v.sku ?? ""), [description]];
  const counts: Map<string, number>[] = [];
  const lengths: number[] = [];
  for (const text of texts) {
    const words = text.flatMap(searchWords);
    const count = new Map<string, number>();
    for (const w of words) if (!terms.stop.has(w)) count.set(w, (count.get(w) ?? 0) + 1);
    lengths.push([...count.values()].reduce((a, b) => a + b, 0));
    for (const group of terms.synonyms) {
      if (!group.some((phrase) => holds(words, phrase))) continue;
      for (const phrase of group) for (const w of phrase) if (!terms.stop.has(w) && !count.has(w)) count.set(w, 1);
    }
    counts.push(count);
  }
  return { counts, lengths };
}

/** A product's description as plain text, as the product answers it (`description_text`). */
function descriptionOf(p: SourceProduct): string {
  return p.description_html ? prepareContent(p.description_html).text : "";
}

/**
 * The `x` rows: every search word of the catalog with the products having it in any field,
 * ascending, and its weight in each (wordWeight), WORD_IDS a row.
 */
function* wordRows(rows: readonly Row[], terms: SearchTerms): Generator<[string, string, string]> {
  const fields = rows.map(({ product }) => fieldWords(product, descriptionOf(product), terms));
  const average = SEARCH_FIELDS.map((_, f) => fields.reduce((n, x) => n + (x.lengths[f] as number), 0) / Math.max(1, fields.length));
  const words = new Map<string, { ids: number[]; wts: number[] }>();
  fields.forEach(({ counts, lengths }, pos) => {
    const seen = new Set<string>();
    for (const count of counts) for (const w of count.keys()) seen.add(w);
    for (const w of seen) {
      const weight = wordWeight(counts.map((c) => c.get(w) ?? 0), lengths, average);
      const list = words.get(w);
      if (list) {
        list.ids.push(pos);
        list.wts.push(weight);
      } else words.set(w, { ids: [pos], wts: [weight] });
    }
  });
  for (const [word, { ids, wts }] of words) {
    for (let at = 0; at < ids.length; at += WORD_IDS) yield [word, ids.slice(at, at + WORD_IDS).join(","), wts.slice(at, at + WORD_IDS).join(",")];
  }
}

/** Every statement that writes a version's browse index: tables, rows, indexes. */
export function* browseIndexSql(catalog: SourceCatalog, version: string): Generator<string> {
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(version, name);
  // A version's tables are written whole: a rerun after a failed attempt starts afresh.
  for (const table of [...BROWSE_TABLES, ...RETIRED_TABLES]) yield `DROP TABLE IF EXISTS ${browseTable(version, table)}`;
  yield* createSql(version);
  const rows = rowsOf(catalog);
  yield* inserts(
    t("p"),
    "id, handle, price, avail, tkey, created, vendor, ptype",
    each(rows, (r) => {
      const p = r.product;
      const created = p.created_at ? Date.parse(p.created_at) : UNDATED;
      return [[r.pos, p.handle, r.price, p.available ? 1 : 0, foldText(p.title), created, r.vendor, r.ptype]];
    }),
  );
  yield* inserts(
    t("i"),
    "id, item, img",
    each(rows, (r) => [[r.pos, listItem(r.product, r.pos, catalog.currency), JSON.stringify(featuredImage(r.product))]]),
  );
  const positions = new Map(rows.map((r) => [r.product.handle, r.pos]));
  yield* inserts(
    t("m"),
    "c, r, pid",
    each(catalog.collections, (c) => c.products.map((handle, rank) => [c.handle, rank, positions.get(handle) ?? -1])),
  );
  const shown = displays(rows);
  // Value ids: every facet value (as in `d`), by facet then key (a facet's ids are one range),
  // then the two of `available`.
  const ids = new Map<string, number>();
  for (const id of [...shown.keys()].sort()) ids.set(id, ids.size);
  for (const key of ["true", "false"]) ids.set(`available\u0000${key}`, ids.size);
  yield* inserts(
    t("d"),
    "id, f, k, d",
    [...ids].map(([id, vid]) => {
      const [f, k] = id.split("\u0000", 2) as [string, string];
      return [vid, f, k, shown.get(id) ?? k];
    }),
  );
  const vid = (facet: string, key: string) => ids.get(`${facet}\u0000${key}`) ?? -1;
  // Postings in (value, product) order, the primary key's: SQLite appends instead of inserting.
  const postings: [number, number][] = [];
  for (const r of rows) {
    for (const k of r.tags) postings.push([vid("tag", k), r.pos]);
    for (const [f, k] of r.optionKeys) postings.push([vid(f, k), r.pos]);
  }
  postings.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  yield* inserts(t("v"), "vid, pid", postings);
  const names = optionNames(catalog);
  yield* inserts(t("o"), "name, ord", names.map((name, ord) => [name, ord]));
  const terms = searchTerms(catalog);
  yield* inserts(t("x"), "k, ids, wts", wordRows(rows, terms));
  yield* inserts(t("z"), "k", [...terms.stop].map((k) => [k]));
  yield* inserts(t("c"), "handle, title, n", catalog.collections.map((c) => [c.handle, c.title, c.products.length]));
  yield* indexSql(version);
}

/** Writes a version's browse index, in statements grouped by `batch`. */
export async function writeBrowseIndex(target: BrowseTarget, catalog: SourceCatalog, version: string, batch = 64): Promise<number> {
  let group: string[] = [];
  let count = 0;
  for (const statement of browseIndexSql(catalog, version)) {
    group.push(statement);
    count++;
    if (group.length >= batch) {
      await target.run(group);
      group = [];
    }
  }
  if (group.length > 0) await target.run(group);
  if (target.snapshots) await writeBrowseSnapshot(target.snapshots, version);
  return count;
}

/** Whether a version's index is complete in this layout: its last index exists, and the weighted word lists (older layouts had none). */
export async function hasBrowseIndex(target: BrowseTarget, version: string): Promise<boolean> {
  const tables = await target.tables();
  return tables.includes(lastIndexName(version)) && tables.includes(`bv_${version}_x`);
}

/** Drops the index tables of every version but `keep`; returns how many tables went. */
export async function dropStaleBrowse(target: BrowseTarget, keep: readonly string[]): Promise<number> {
  const stale = (await target.tables()).filter((name) => {
    const version = browseTableVersion(name);
    return version !== null && !keep.includes(version);
  });
  if (stale.length > 0) await target.run(stale.map((name) => `DROP TABLE IF EXISTS "${name}"`));
  const snapshots = target.snapshots;
  if (snapshots?.keys && snapshots.delete) {
    const old = (await snapshots.keys()).filter((key) => {
      const version = browseSnapshotVersion(key);
      return version !== null && !keep.includes(version);
    });
    if (old.length > 0) await snapshots.delete(old);
  }
  return stale.length;
}

/** Snapshots in an R2 binding (tests, local state through openLocalEnv, the bench). */
export function r2Snapshots(db: D1Database, bucket: R2Bucket): SnapshotTarget {
  return {
    reader: new BrowseStore(db),
    async put(key, bytes) {
      // A whole buffer: a view's offset does not survive every binding proxy.
      await bucket.put(key, bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice());
    },
    async keys() {
      const keys: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await bucket.list({ prefix: "browse/", ...(cursor ? { cursor } : {}) });
        keys.push(...page.objects.map((o) => o.key));
        cursor = page.truncated ? page.cursor : undefined;
      } while (cursor);
      return keys;
    },
    async delete(keys) {
      await bucket.delete(keys);
    },
  };
}

/** A browse target over a D1 binding (tests, local state through openLocalEnv), with snapshots into `bucket` when given. */
export function d1Target(db: D1Database, bucket?: R2Bucket): BrowseTarget {
  return {
    ...(bucket ? { snapshots: r2Snapshots(db, bucket) } : {}),
    async run(statements) {
      await db.batch(statements.map((s) => db.prepare(s)));
    },
    async tables() {
      const { results } = await db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')").all<{ name: string }>();
      return results.map((r) => r.name);
    },
  };
}
