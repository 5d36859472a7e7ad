import {
  BROWSE_TABLES,
  browseTable,
  browseTableVersion,
  createSql,
  indexSql,
  lastIndexName,
  optionFacet,
  RETIRED_TABLES,
  UNDATED,
  WORD_IDS,
} from "../browse/layout.ts";
import { browseSnapshotKey, browseSnapshotVersion, encodeSnapshot, type SnapshotManifest } from "../browse/snapshot.ts";
import { type BrowseReader, BrowseStore, readBrowseData } from "../browse/source.ts";
import type { ShardOf } from "../browse/replies.ts";
import { camelParts, foldText, joinedWords, packWeight, SEARCH_FIELDS, searchWords, valueKey } from "../browse/text.ts";
import { type BrowseData, VersionIndex } from "../browse/index/version-index.ts";
import { isPacked, packItems, packStrings } from "../browse/index/items.ts";
import { renderListItem } from "../catalog/render.ts";
import { optionApiName, type SourceProduct } from "../catalog/schema.ts";
import { toMinor } from "../money.ts";
import { sha256Hex } from "../sha256.ts";
import { handlesOf, productRecord } from "./build.ts";
import { featuredImage } from "./content.ts";
import { prepareContent } from "./sanitize.ts";
import { type ProductList, type PublishCatalog, pause, productAt } from "./catalog-input.ts";

/**
 * The browse index of a catalog version (layout in src/browse/layout.ts), as SQL text:
 * the same statements feed a D1 binding (tests, `npm run dev`, the bench) and
 * `wrangler d1 execute --remote --file`. Values are written as SQL literals, not bound, because
 * D1 binds at most 100 parameters per statement; rows are grouped into INSERTs of about
 * STATEMENT_BYTES (D1's limit is 100 KB per statement) and at most STATEMENT_ROWS rows (a VALUES
 * list of ~10,000 short integer rows runs local D1 out of memory: SQLITE_NOMEM).
 *
 * Why the index is built this way, with the figures that decided it: docs/decisions/0003
 * (browse in memory), 0005 (search ranking) and 0006 (snapshots).
 */

const STATEMENT_BYTES = 90_000;
const STATEMENT_ROWS = 4_000;
const utf8 = new TextEncoder();

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
  /** A stored object (a change batch reads its base's state: src/publish/batch/), null when absent. */
  get?(key: string): Promise<Uint8Array | null>;
  /** Every snapshot key, and a delete, to drop stale versions' snapshots; a target without them keeps them all. */
  keys?(): Promise<string[]>;
  delete?(keys: string[]): Promise<void>;
}

/**
 * What a snapshot carries for `data`: the data plus the derived parts (BuiltParts: the engine then
 * makes views, not sorts and columns), the items deflated by block (items.ts: inflated by the
 * engine a block at a time as pages show them) and the handles and folded titles as UTF-8 (no 100k
 * JSON strings to parse at start).
 */
export async function snapshotTree(data: BrowseData): Promise<BrowseData> {
  const built = new VersionIndex(data).built;
  const items = isPacked(data.items) ? data.items : await packItems(data.items);
  const handles = Array.isArray(data.handles) ? packStrings(data.handles) : data.handles;
  const titleKeys = Array.isArray(data.titleKeys) ? packStrings(data.titleKeys) : data.titleKeys;
  return { ...data, items, handles, titleKeys, built };
}

/**
 * Writes `version`'s snapshot from its (already written) tables, or one snapshot per shard when
 * its index is cut into `shards` (browse/shards.ts); returns their size in bytes.
 */
export async function writeBrowseSnapshot(target: SnapshotTarget, version: string, shards = 1): Promise<number> {
  let bytes = 0;
  // A shard at a time, read as its engine would read it: a million products' index is never held whole.
  for (let shard = 0; shard < shards; shard++) {
    const of = shards > 1 ? { shard, shards } : undefined;
    const chunks = await encodeSnapshot(await snapshotTree(await readBrowseData(target.reader, version, of)));
    await writeChunks(target, version, chunks, of);
    bytes += chunks.reduce((n, c) => n + c.byteLength, 0);
  }
  return bytes;
}

/** Stores a snapshot's chunks (encodeSnapshot's), then its manifest (snapshot.ts, browseSnapshotKey). */
export async function writeChunks(
  target: Pick<SnapshotTarget, "put">,
  version: string,
  chunks: readonly Uint8Array[],
  of?: ShardOf,
): Promise<void> {
  const key = browseSnapshotKey(version, of);
  // Chunks first, the manifest last: a reader finds a manifest only once every chunk is there.
  for (const [n, chunk] of chunks.entries()) await target.put(`${key}/${n}`, chunk);
  // Each chunk's SHA-256, which the engine checks before it decodes anything (snapshot.ts).
  const sha256 = await Promise.all(chunks.map((chunk) => sha256Hex(chunk)));
  const manifest: SnapshotManifest = {
    bytes: chunks.reduce((n, c) => n + c.byteLength, 0),
    chunks: chunks.length,
    sha256,
  };
  await target.put(key, new TextEncoder().encode(JSON.stringify(manifest)));
}

function literal(value: string | number | bigint): string {
  if (typeof value !== "string") return String(value);
  // Control characters (NUL above all) would end or bend a literal: those strings go as UTF-8 hex.
  if (/[\u0000-\u001f]/.test(value))
    return (
      `CAST(X'${[...new TextEncoder().encode(value)].map((b) => b.toString(16).padStart(2, "0")).join("")}' ` +
      `AS TEXT)`
    );
  return `'${value.replaceAll("'", "''")}'`;
}

/** `items.map(f)` made lazily, so rows become text one INSERT at a time, not all at once. */
function* each<T, R>(items: Iterable<T>, f: (item: T) => Iterable<R>): Generator<R> {
  for (const item of items) yield* f(item);
}

type Rows = Iterable<readonly (string | number | bigint)[]> | AsyncIterable<readonly (string | number | bigint)[]>;

/** Multi-row INSERTs of about STATEMENT_BYTES, or STATEMENT_ROWS rows, each. */
async function* inserts(table: string, columns: string, rows: Rows): AsyncGenerator<string> {
  const head = `INSERT INTO ${table} (${columns}) VALUES `;
  let parts: string[] = [];
  let size = head.length;
  for await (const row of rows) {
    const tuple = `(${row.map(literal).join(",")})`;
    // Bytes, not UTF-16 units: D1 counts the statement's UTF-8, where "€" takes 3 (a catalog of
    // long non-Latin titles made 200 KB statements: SQLITE_TOOBIG, and no publish).
    const bytes = utf8.encode(tuple).length;
    if (parts.length > 0 && (size + bytes > STATEMENT_BYTES || parts.length >= STATEMENT_ROWS)) {
      yield head + parts.join(",");
      parts = [];
      size = head.length;
    }
    parts.push(tuple);
    size += bytes + 1;
  }
  if (parts.length > 0) yield head + parts.join(",");
}

function listItem(p: SourceProduct, pos: number, currency: string): string {
  return JSON.stringify(renderListItem(productRecord(p, pos, {}, currency)));
}

/** `f(product, pos)` for each product in order, made lazily: one product parsed at a time. */
async function* eachProduct<R>(
  products: ProductList,
  f: (product: SourceProduct, pos: number) => Iterable<R>,
): AsyncGenerator<R> {
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    yield* f(productAt(products, pos), pos);
  }
}

/** [facet, key] of a product's options that have an available variant. */
function optionKeys(product: SourceProduct): [string, string][] {
  const keys = new Map<string, [string, string]>();
  for (const variant of product.variants) {
    if (!(product.available && variant.available)) continue;
    for (const option of product.options) {
      const value = variant.options[option.name];
      if (value === undefined) continue;
      const pair: [string, string] = [optionFacet(optionApiName(option.name)), valueKey(value)];
      keys.set(pair.join("\u0000"), pair);
    }
  }
  return [...keys.values()];
}

/** The first spelling of every value key, per facet, in catalog order. */
async function displays(products: ProductList): Promise<Map<string, string>> {
  const shown = new Map<string, string>();
  const see = (facet: string, value: string) => {
    const id = `${facet}\u0000${valueKey(value)}`;
    if (!shown.has(id)) shown.set(id, value);
  };
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    const product = productAt(products, pos);
    see("vendor", product.vendor);
    if (product.product_type !== "") see("product_type", product.product_type);
    for (const tag of product.tags) see("tag", tag);
    for (const option of product.options)
      for (const value of option.values) see(optionFacet(optionApiName(option.name)), value);
  }
  return shown;
}

async function optionNames(catalog: PublishCatalog): Promise<string[]> {
  const names = new Set<string>();
  for (let pos = 0; pos < catalog.products.length; pos++) {
    await pause(pos);
    for (const o of productAt(catalog.products, pos).options) names.add(optionApiName(o.name));
  }
  return [...names];
}

/**
 * The `v` rows, (value, product) pairs in that order (the primary key's: SQLite appends instead of
 * inserting), packed one number a pair (value id * 2^24 + position) into a typed array: at a
 * million products some ten million pairs, which as two-element arrays took ~50 bytes each.
 */
async function* postingRows(
  products: ProductList,
  vid: (facet: string, key: string) => number,
): AsyncGenerator<[number, number]> {
  const SPAN = 2 ** 24;
  if (products.length > SPAN) throw new RangeError(`more than ${SPAN} products`);
  let packed = new Float64Array(1 << 16);
  let n = 0;
  const add = (value: number, pos: number) => {
    if (n === packed.length) {
      const grown = new Float64Array(packed.length * 2);
      grown.set(packed);
      packed = grown;
    }
    packed[n++] = value * SPAN + pos;
  };
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    const product = productAt(products, pos);
    for (const k of new Set(product.tags.map(valueKey))) add(vid("tag", k), pos);
    for (const [f, k] of optionKeys(product)) add(vid(f, k), pos);
  }
  const sorted = packed.subarray(0, n).sort();
  for (const pair of sorted) yield [Math.floor(pair / SPAN), pair % SPAN];
}

/** The search settings of a catalog, folded: synonym groups as word lists, stop words as a set. */
export interface SearchTerms {
  synonyms: string[][][];
  stop: Set<string>;
}

export function searchTerms(catalog: PublishCatalog): SearchTerms {
  const synonyms = (catalog.search?.synonyms ?? []).map((group) =>
    group.map(searchWords).filter((words) => words.length > 0),
  );
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
 * the group's other phrases it lacks, once; a field other than the SKUs gains the joined form of
 * each of its hyphenated runs (joinedWords: `T-Shirt` also gives `tshirt`) and the parts of its
 * camel-case words (camelParts: `#GlutenFree` also gives `gluten`, `free`), once. None changes
 * the field's length.
 */
export function fieldWords(
  p: SourceProduct,
  description: string,
  terms: SearchTerms,
): { counts: Map<string, number>[]; lengths: number[] } {
  const texts: string[][] = [
    [p.title],
    [p.vendor],
    [p.product_type],
    p.tags,
    p.options.flatMap((o) => o.values),
    p.variants.map((v) => v.sku ?? ""),
    [description],
  ];
  const counts: Map<string, number>[] = [];
  const lengths: number[] = [];
  texts.forEach((text, f) => {
    const words = text.flatMap(searchWords);
    const count = new Map<string, number>();
    for (const w of words) if (!terms.stop.has(w)) count.set(w, (count.get(w) ?? 0) + 1);
    lengths.push([...count.values()].reduce((a, b) => a + b, 0));
    for (const group of terms.synonyms) {
      if (!group.some((phrase) => holds(words, phrase))) continue;
      for (const phrase of group) for (const w of phrase) if (!terms.stop.has(w) && !count.has(w)) count.set(w, 1);
    }
    // Not a SKU's: its parts already match exactly, and every variant would add a word nobody types.
    if (SEARCH_FIELDS[f] !== "sku")
      for (const w of [...text.flatMap(joinedWords), ...text.flatMap(camelParts)])
        if (!terms.stop.has(w) && !count.has(w)) count.set(w, 1);
    counts.push(count);
  });
  return { counts, lengths };
}

/** A product's description as plain text, as the product answers it (`description_text`). */
function descriptionOf(p: SourceProduct): string {
  return p.description_html ? prepareContent(p.description_html).text : "";
}

/**
 * The `x` rows: every search word of the catalog with the products having it in any field,
 * ascending, and what its weight in each is made of (text.ts packWeight: the catalog's averages
 * come in when a query is scored), WORD_IDS a row; words in the order they first appear; and the
 * `l` rows, each product's title and description lengths. Two passes over the products, each
 * making their field words anew (a product list on disk holds no product): the first counts each
 * word's products, the second writes every (product, packed weight) of a word into one typed
 * array of all, 8 bytes each. Held whole, every product's field words took ~0.9 GiB of heap at
 * 100,000 products, and the lists of numbers as many bytes again.
 */
async function wordRows(
  products: ProductList,
  terms: SearchTerms,
  lengths: { title: Uint16Array; description: Uint16Array },
): Promise<AsyncGenerator<[string, string, string]>> {
  const fieldsAt = (pos: number) => {
    const product = productAt(products, pos);
    return fieldWords(product, descriptionOf(product), terms);
  };
  const wordsOf = (counts: readonly Map<string, number>[]) => {
    const seen = new Set<string>();
    for (const count of counts) for (const w of count.keys()) seen.add(w);
    return seen;
  };
  const index = new Map<string, number>();
  let df = new Uint32Array(1 << 16);
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    const { counts, lengths: fields } = fieldsAt(pos);
    lengths.title[pos] = Math.min(65535, fields[TITLE] ?? 0);
    lengths.description[pos] = Math.min(65535, fields[DESCRIPTION] ?? 0);
    for (const w of wordsOf(counts)) {
      let i = index.get(w);
      if (i === undefined) {
        i = index.size;
        index.set(w, i);
        if (i === df.length) {
          const grown = new Uint32Array(df.length * 2);
          grown.set(df);
          df = grown;
        }
      }
      df[i] = (df[i] as number) + 1;
    }
  }
  const start = new Float64Array(index.size + 1);
  for (let i = 0; i < index.size; i++) start[i + 1] = (start[i] as number) + (df[i] as number);
  const ids = new Uint32Array(start[index.size] as number);
  const wts = new Uint32Array(ids.length);
  const next = start.slice(0, index.size);
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    const { counts } = fieldsAt(pos);
    for (const w of wordsOf(counts)) {
      const i = index.get(w) as number;
      const at = next[i] as number;
      next[i] = at + 1;
      ids[at] = pos;
      wts[at] = packWeight(counts.map((c) => c.get(w) ?? 0));
    }
  }
  return (async function* () {
    for (const [word, i] of index) {
      const end = start[i + 1] as number;
      for (let at = start[i] as number; at < end; at += WORD_IDS) {
        const to = Math.min(end, at + WORD_IDS);
        yield [word, ids.subarray(at, to).join(","), wts.subarray(at, to).join(",")];
      }
    }
  })();
}

/** Where the title and the description are among a product's search fields (their lengths count). */
const TITLE = SEARCH_FIELDS.indexOf("title");
const DESCRIPTION = SEARCH_FIELDS.indexOf("description");

/**
 * The `u` rows: (value, product) for each option value a product declares (`options[].values`)
 * but no available variant of it offers, so with `v` every product declaring a value is known
 * (a change batch finds from them which product spells a value first, as `d` shows it).
 */
async function* unofferedRows(
  products: ProductList,
  vid: (facet: string, key: string) => number,
): AsyncGenerator<[number, number]> {
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    const product = productAt(products, pos);
    const offered = new Set(optionKeys(product).map(([f, k]) => `${f}\u0000${k}`));
    const seen = new Set<string>();
    for (const option of product.options) {
      const facet = optionFacet(optionApiName(option.name));
      for (const value of option.values) {
        const id = `${facet}\u0000${valueKey(value)}`;
        if (offered.has(id) || seen.has(id)) continue;
        seen.add(id);
        yield [vid(facet, valueKey(value)), pos];
      }
    }
  }
}

/**
 * A change batch's layer (issue 45, browse/overlay.ts): the index of the products changed since
 * the root, whose places are not 0..n-1 but their catalog slots, and whose collections are the
 * catalog's (every header; each member's rank in its whole collection).
 */
export interface LayerPlaces {
  /** By product (in `catalog.products` order): its slot, ascending. */
  slots: readonly number[];
  /** Every collection of the catalog: handle, title, product count. */
  headers: readonly { handle: string; title: string; n: number }[];
  /** (collection, rank in the whole collection, product's place in `catalog.products`). */
  members: readonly [handle: string, rank: number, id: number][];
}

/** Every statement that writes a version's browse index: tables, rows, indexes (a change batch's layer: `layer`). */
export async function* browseIndexSql(
  catalog: PublishCatalog,
  version: string,
  layer?: LayerPlaces,
): AsyncGenerator<string> {
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(version, name);
  // A version's tables are written whole: a rerun after a failed attempt starts afresh.
  for (const table of [...BROWSE_TABLES, ...RETIRED_TABLES])
    yield `DROP TABLE IF EXISTS ${browseTable(version, table)}`;
  yield* createSql(version);
  if (layer) {
    yield `CREATE TABLE ${t("s")} (id INTEGER PRIMARY KEY, slot INTEGER NOT NULL)`;
    yield* inserts(
      t("s"),
      "id, slot",
      layer.slots.map((slot, id) => [id, slot]),
    );
  }
  const { products, currency } = catalog;
  yield* inserts(
    t("p"),
    "id, handle, price, avail, tkey, created, vendor, ptype, gid",
    eachProduct(products, (p, pos) => {
      const created = p.created_at ? Date.parse(p.created_at) : UNDATED;
      const price = Math.min(...p.variants.map((v) => toMinor(v.price, currency)));
      const row = [pos, p.handle, price, p.available ? 1 : 0, foldText(p.title), created];
      return [[...row, valueKey(p.vendor), valueKey(p.product_type), p.id]];
    }),
  );
  yield* inserts(
    t("i"),
    "id, item, img",
    eachProduct(products, (p, pos) => [[pos, listItem(p, pos, currency), JSON.stringify(featuredImage(p))]]),
  );
  if (layer) yield* inserts(t("m"), "c, r, pid", layer.members);
  else {
    const positions = new Map((await handlesOf(products)).map((handle, pos) => [handle, pos]));
    yield* inserts(
      t("m"),
      "c, r, pid",
      each(catalog.collections, (c) => c.products.map((handle, rank) => [c.handle, rank, positions.get(handle) ?? -1])),
    );
  }
  const shown = await displays(products);
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
  yield* inserts(t("v"), "vid, pid", postingRows(products, vid));
  yield* inserts(t("u"), "vid, pid", unofferedRows(products, vid));
  const names = await optionNames(catalog);
  yield* inserts(
    t("o"),
    "name, ord",
    names.map((name, ord) => [name, ord]),
  );
  const terms = searchTerms(catalog);
  const lengths = { title: new Uint16Array(products.length), description: new Uint16Array(products.length) };
  yield* inserts(t("x"), "k, ids, wts", await wordRows(products, terms, lengths));
  yield* inserts(
    t("l"),
    "id, tl, dl",
    each(lengths.title.keys(), (pos) => [[pos, lengths.title[pos] as number, lengths.description[pos] as number]]),
  );
  const { products: _products, collections: _collections, ...settings } = catalog;
  yield* inserts(t("g"), "k, v", [
    ["weights", "packed"],
    // The catalog's own fields (currency, search settings...): what a change batch is checked and indexed with.
    ["settings", JSON.stringify(settings)],
  ]);
  yield* inserts(
    t("z"),
    "k",
    [...terms.stop].map((k) => [k]),
  );
  yield* inserts(
    t("c"),
    "handle, title, n",
    layer
      ? layer.headers.map((c) => [c.handle, c.title, c.n])
      : catalog.collections.map((c) => [c.handle, c.title, c.products.length]),
  );
  yield* indexSql(version);
}

/** Writes a version's browse index, in statements grouped by `batch`, and its snapshot (in `shards`). */
export async function writeBrowseIndex(
  target: BrowseTarget,
  catalog: PublishCatalog,
  version: string,
  shards = 1,
  batch = 64,
): Promise<number> {
  let group: string[] = [];
  let count = 0;
  for await (const statement of browseIndexSql(catalog, version)) {
    group.push(statement);
    count++;
    if (group.length >= batch) {
      await target.run(group);
      group = [];
    }
  }
  if (group.length > 0) await target.run(group);
  if (target.snapshots) await writeBrowseSnapshot(target.snapshots, version, shards);
  return count;
}

/** Whether a version's index is complete in this layout: its last index exists, and the weighted word lists (older layouts had none). */
export async function hasBrowseIndex(target: BrowseTarget, version: string): Promise<boolean> {
  const tables = await target.tables();
  return tables.includes(lastIndexName(version)) && tables.includes(`bv_${version}_x`);
}

/** Drops the index tables of every version but `keep`; returns how many tables went. */
export function dropStaleBrowse(target: BrowseTarget, keep: readonly string[]): Promise<number> {
  return dropBrowse(target, (version) => !keep.includes(version));
}

/** Drops the index tables and snapshots of `versions` only; returns how many tables went. */
export function dropBrowseOf(target: BrowseTarget, versions: readonly string[]): Promise<number> {
  const gone = new Set(versions);
  return dropBrowse(target, (version) => gone.has(version));
}

async function dropBrowse(target: BrowseTarget, stale: (version: string) => boolean): Promise<number> {
  const tables = (await target.tables()).filter((name) => {
    const version = browseTableVersion(name);
    return version !== null && stale(version);
  });
  if (tables.length > 0) await target.run(tables.map((name) => `DROP TABLE IF EXISTS "${name}"`));
  const snapshots = target.snapshots;
  if (snapshots?.keys && snapshots.delete) {
    const old = (await snapshots.keys()).filter((key) => {
      const version = browseSnapshotVersion(key);
      return version !== null && stale(version);
    });
    if (old.length > 0) await snapshots.delete(old);
  }
  return tables.length;
}

/** Snapshots in an R2 binding (tests, local state through openLocalEnv, the bench). */
export function r2Snapshots(db: D1Database, bucket: R2Bucket): SnapshotTarget {
  return {
    reader: new BrowseStore(db),
    async put(key, bytes) {
      // A whole buffer: a view's offset does not survive every binding proxy.
      await bucket.put(
        key,
        bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : bytes.slice(),
      );
    },
    async get(key) {
      const object = await bucket.get(key);
      return object ? new Uint8Array(await object.arrayBuffer()) : null;
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
      // As a batch, the one D1 call the local tools retry (local-env.ts `retrying`).
      const [listed] = await db.batch<{ name: string }>([
        db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')"),
      ]);
      return (listed?.results ?? []).map((r) => r.name);
    },
  };
}
