import { browseTable } from "./layout.ts";
import { browseDataFromSnapshot, browseSnapshotKey, SnapshotDamaged, type SnapshotManifest } from "./snapshot.ts";
import { sha256Hex } from "../sha256.ts";
import { browseUnavailable } from "../catalog/errors.ts";
import type { ShardOf } from "./replies.ts";
import { shardRange } from "./shards.ts";
import type { FacetValueRow } from "./index/facet-index.ts";
import type { BrowseData, CollectionData, Items } from "./index/version-index.ts";

/**
 * What a version's VersionIndex is built from: its snapshot in R2 when there is one (one read,
 * browse-snapshot.ts: readBrowseIndex), else read out of its browse index in D1 (layout in
 * browse-layout.ts), once per version per BrowseEngine instance: one batch of 13 statements,
 * then the items in batches of ITEM_STATEMENTS statements of ITEM_IDS products. Lists come as
 * text, many products a row (ids and numbers comma-separated, records a line each), so no row
 * nears D1's 2 MB limit whatever the catalog size and the runtime builds one string per row,
 * not one object per product. Figures at 100,000 products in README, "Browse in memory".
 */

/** Products per row of an id list (ids are grouped by `id >> CHUNK_BITS`). */
const CHUNK_BITS = 12;
/** Products per row of items (JSON is longer than ids). */
const ITEM_ROW_BITS = 9;
/** Products per statement, and statements per batch, of the item reads (~3 MB a statement). */
const ITEM_IDS = 8_192;
const ITEM_STATEMENTS = 4;

/** The statements of one batch, run in one round trip; results in the same order. */
export interface Statement {
  sql: string;
  params: (string | number)[];
}

/** The R2 bucket of snapshots as the reader needs it (an R2Bucket binding, or a stand-in that counts). */
export interface SnapshotBucket {
  get(key: string): Promise<{ arrayBuffer(): Promise<ArrayBuffer> } | null>;
}

/**
 * The snapshot's chunks in order, each its own buffer (the index's views point into them); null
 * without a manifest or with a chunk missing. One read after another: in Miniflare, reading the
 * 100k snapshot's chunks at once took 80-430 ms against 50-220 ms one by one (load 2-5). Each
 * chunk's SHA-256 is computed while the next is read and checked against the manifest before
 * anything is decoded: a chunk that differs (or a manifest without checksums) throws
 * SnapshotDamaged naming the version, shard and chunk.
 */
export async function readSnapshot(
  bucket: SnapshotBucket,
  version: string,
  of?: ShardOf,
): Promise<Uint8Array[] | null> {
  const key = browseSnapshotKey(version, of);
  const manifest = await bucket.get(key);
  if (!manifest) return null;
  const shard = of ? of.shard : null;
  const { bytes, chunks, sha256 } = JSON.parse(
    new TextDecoder().decode(await manifest.arrayBuffer()),
  ) as SnapshotManifest;
  if (!Array.isArray(sha256) || sha256.length !== chunks)
    throw new SnapshotDamaged(version, shard, null, "its manifest has no checksum for each chunk (publish again)");
  const out: Uint8Array[] = [];
  const digests: Promise<string>[] = [];
  let read = 0;
  for (let n = 0; n < chunks; n++) {
    const object = await bucket.get(`${key}/${n}`);
    if (!object) return null;
    const chunk = new Uint8Array(await object.arrayBuffer());
    out.push(chunk);
    digests.push(sha256Hex(chunk));
    read += chunk.byteLength;
  }
  if (read !== bytes) return null;
  const found = await Promise.all(digests);
  const bad = found.findIndex((digest, n) => digest !== sha256[n]);
  if (bad !== -1) throw new SnapshotDamaged(version, shard, bad, "its SHA-256 differs from the manifest's");
  return out;
}

/** One JSON line at error level naming what is damaged, so an operator can find it (never a secret: versions and numbers only). */
export function logSnapshotDamaged(error: SnapshotDamaged): void {
  console.error(
    JSON.stringify({
      level: "error",
      error: "browse_snapshot_damaged",
      message: `Browse snapshot of version ${error.version}, shard ${error.shard ?? 0}, chunk ${error.chunk ?? "manifest"}: ${error.message}; answering from D1.`,
      version: error.version,
      shard: error.shard,
      chunk: error.chunk,
    }),
  );
}

/** Where a version's index came from, and how long reading it took (for the engine's log and the bench). */
export interface IndexSource {
  from: "snapshot" | "d1";
  bytes: number;
  /** Read and decode together. */
  ms: number;
  /** Of `ms`: the storage reads (R2's manifest and chunks, or D1's batches), and turning what they returned into BrowseData. */
  readMs: number;
  decodeMs: number;
}

/**
 * A version's BrowseData: its snapshot when the bucket holds one in this reader's format (an
 * old version's snapshot, or a publish without a bucket, has none: D1 then, as before); a
 * snapshot whose checksums fail (logged at error level) or that fails to decode is reported and
 * D1 read instead, so a bad blob costs time, not answers. `skipSnapshot`: D1 only (the engine,
 * after an item block of the snapshot failed to inflate).
 */
export async function readBrowseIndex(
  store: BrowseStore,
  snapshots: SnapshotBucket | undefined,
  version: string,
  of?: ShardOf,
  options: { skipSnapshot?: boolean } = {},
): Promise<{ data: BrowseData; source: IndexSource }> {
  const started = Date.now();
  let chunks: Uint8Array[] | null = null;
  if (snapshots && !options.skipSnapshot) {
    try {
      chunks = await readSnapshot(snapshots, version, of);
    } catch (error) {
      if (error instanceof SnapshotDamaged) logSnapshotDamaged(error);
      else
        console.warn(
          `browse snapshot of ${version} unreadable (${error instanceof Error ? error.message : "unknown"}); reading D1`,
        );
    }
  }
  if (chunks) {
    const read = Date.now();
    try {
      const data = await browseDataFromSnapshot(chunks);
      const ms = Date.now() - started;
      const bytes = chunks.reduce((n, c) => n + c.byteLength, 0);
      return { data, source: { from: "snapshot", bytes, ms, readMs: read - started, decodeMs: ms - (read - started) } };
    } catch (error) {
      const reason = `it fails to decode (${error instanceof Error ? error.message : "unknown"})`;
      logSnapshotDamaged(new SnapshotDamaged(version, of ? of.shard : null, null, reason));
    }
  }
  const data = await readBrowseData(store, version, of);
  // D1's reads and their parsing interleave (batch by batch): all of it counts as the read.
  const ms = Date.now() - started;
  return { data, source: { from: "d1", bytes: 0, ms, readMs: ms, decodeMs: 0 } };
}

/** What runs the reader's batches: BrowseStore (D1), or a copy of the statements in node:sqlite (a remote publish's snapshot). */
export interface BrowseReader {
  batch(statements: readonly Statement[]): Promise<Record<string, unknown>[][]>;
}

/** The D1 side of browse: the only code that queries the BROWSE database on a read. */
export class BrowseStore implements BrowseReader {
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
      // written in an older layout).
      if (error instanceof Error && /no such (table|column)/.test(error.message)) {
        throw browseUnavailable(
          "this catalog version has no browse index (the operator must publish the catalog again)",
        );
      }
      throw error;
    }
  }
}

const UTF8 = new TextDecoder();

/** Text SQLite's hex() gave (its UTF-8 bytes). */
function fromHex(hex: string): string {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return UTF8.decode(bytes);
}

function ids(text: unknown): Uint32Array {
  if (typeof text !== "string" || text === "") return new Uint32Array(0);
  const parts = text.split(",");
  const out = new Uint32Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}

/** Each line of the `lines` column of `rows`, split into its `separator`-separated fields. */
function* records(rows: readonly Record<string, unknown>[], separator: string): Generator<string[]> {
  for (const row of rows)
    for (const line of String(row.lines ?? "").split("\n")) if (line !== "") yield line.split(separator);
}

/** Copies `lists` one after another into `into` from `at`; returns where they end. */
function copyInto(lists: readonly Uint32Array[], into: Uint32Array, at: number): number {
  for (const l of lists) {
    into.set(l, at);
    at += l.length;
  }
  return at;
}

const total = (lists: readonly Uint32Array[]) => lists.reduce((n, l) => n + l.length, 0);

/** Concatenates the id lists of each key, in the order they come. */
function grouped(rows: Iterable<[key: string, ids: Uint32Array]>): Map<string, Uint32Array> {
  const parts = new Map<string, Uint32Array[]>();
  for (const [key, list] of rows) {
    const lists = parts.get(key);
    if (lists) lists.push(list);
    else parts.set(key, [list]);
  }
  const out = new Map<string, Uint32Array>();
  for (const [key, lists] of parts) {
    const all = new Uint32Array(total(lists));
    copyInto(lists, all, 0);
    out.set(key, all);
  }
  return out;
}

/**
 * A version's index as D1 holds it, whole or (`of`) one shard of it (shards.ts): a shard reads
 * only its products' rows, numbered from 0 again, with what makes it comparable with the others
 * (every facet value, each collection's header and each member's rank in the whole collection,
 * each word's products in the whole catalog): a publish writes a million products' snapshots a
 * shard at a time, and an engine without its snapshot reads its shard, not the catalog.
 */
export async function readBrowseData(store: BrowseReader, version: string, of?: ShardOf): Promise<BrowseData> {
  const t = (name: Parameters<typeof browseTable>[1]) => browseTable(version, name);
  const chunk = (column: string) => `${column} >> ${CHUNK_BITS}`;
  // The layout (packed weights and lengths since issue 45, or the weights themselves before), and
  // for a shard its range of catalog positions from the catalog's size: one round trip more.
  const [[marker] = [], [row] = []] = await store.batch([
    {
      sql:
        "SELECT sum(name = ?1) AS packed, sum(name = ?2) AS layer FROM sqlite_master WHERE type = 'table' AND " +
        "name IN (?1, ?2)",
      params: [`bv_${version}_g`, `bv_${version}_s`],
    },
    { sql: `SELECT coalesce(max(id) + 1, 0) AS size, count(*) AS products FROM ${t("p")}`, params: [] },
  ]);
  const packed = Number(marker?.packed ?? 0) > 0;
  // A change batch's layer (browse/overlay.ts): its products' slots, its members' ranks in their whole collections.
  const layer = Number(marker?.layer ?? 0) > 0;
  let range: { from: number; to: number; size: number; products: number } | undefined;
  if (of) {
    const size = Number(row?.size ?? 0);
    const [from, to] = shardRange(size, of);
    range = { from, to, size, products: Number(row?.products ?? 0) };
  }
  const from = range?.from ?? 0;
  /** ` AND <column> in the shard's range`, or nothing for the whole index. */
  const within = (column: string) => (range ? ` AND ${column} >= ${range.from} AND ${column} < ${range.to}` : "");
  // A line per record; fields joined by a tab or a space (none appears in a field), ids by commas.
  const lines = (fields: string, from: string, group: string) =>
    `SELECT group_concat(${fields}, char(10)) AS lines FROM ${from} GROUP BY ${group}`;
  const postings = (vid: string, facet: string, column: string) =>
    `SELECT ${vid} AS vid, group_concat(p.id) AS ids FROM ${t("p")} p JOIN ${t("d")} d ON ` +
    `d.f = '${facet}' AND d.k = ${column} WHERE 1${within("p.id")} GROUP BY ${column}, ${chunk("p.id")}`;
  // A member's rank is its place in the whole collection (every member is a product: parseCatalog).
  const members = `${t("m")} WHERE pid >= 0${within("pid")}`;
  // A shard's words: each row holding any of its products (a row's ids lie below the next row's
  // first); rows in order, so a word's ids ascend across them.
  const words = range
    ? `SELECT group_concat(k || ' ' || ids || ' ' || wts, char(10) ORDER BY row) AS lines FROM ` +
      `(SELECT k, ids, wts, rowid AS row, CAST(ids AS INTEGER) AS first, lead(CAST(ids AS INTEGER)) OVER ` +
      `(PARTITION BY k ORDER BY rowid) AS next FROM ${t("x")}) WHERE first < ${range.to} AND (next IS NULL OR ` +
      `next > ${range.from}) GROUP BY row >> 7 ORDER BY row >> 7`
    : lines(`k || ' ' || ids || ' ' || wts`, t("x"), "rowid >> 7");
  const statements = [
    `SELECT id, f, k, d FROM ${t("d")} ORDER BY id`,
    `SELECT name FROM ${t("o")} ORDER BY ord`,
    `SELECT coalesce(max(id) + 1, 0) AS size FROM ${t("p")}`,
    `SELECT handle, title, n FROM ${t("c")}`,
    `SELECT coalesce(sum(length(CAST(item AS BLOB)) + length(CAST(img AS BLOB))), 0) AS bytes FROM ${t("i")} ` +
      `WHERE 1${within("id")}`,
    // id, price, created, title rank, handle, folded title (as hex: a title may hold any character): a product a line.
    lines(
      `id || ' ' || price || ' ' || created || ' ' || r || ' ' || handle || ' ' || hex(tkey)`,
      `(SELECT id, price, created, dense_rank() OVER (ORDER BY tkey) AS r, handle, tkey FROM ${t("p")}) WHERE 1${within("id")}`,
      chunk("id"),
    ),
    // Tags and options are in `v`; vendor, product type and availability are columns of `p`.
    `SELECT vid, group_concat(pid) AS ids FROM ${t("v")} WHERE 1${within("pid")} GROUP BY vid, ${chunk("pid")}`,
    postings("d.id", "vendor", "p.vendor"),
    postings("d.id", "product_type", "p.ptype"),
    postings("d.id", "available", "iif(p.avail, 'true', 'false')"),
    lines(`c || ' ' || r || ' ' || pid`, members, `c, ${chunk("r")}`),
    // Each word with its products and their weights, in row order (a word's ids ascend across its rows).
    words,
    `SELECT k FROM ${t("z")}`,
    // The lengths weights are normalised by: each product's, and the whole catalog's sums.
    ...(packed
      ? [
          lines(`id || ' ' || tl || ' ' || dl`, `${t("l")} WHERE 1${within("id")}`, chunk("id")),
          `SELECT count(*) AS n, coalesce(sum(tl), 0) AS title, coalesce(sum(dl), 0) AS description FROM ${t("l")}`,
        ]
      : []),
    ...(layer ? [`SELECT group_concat(slot) AS ids FROM (SELECT slot FROM ${t("s")} ORDER BY id)`] : []),
  ];
  const results = await store.batch(statements.map((sql) => ({ sql, params: [] })));
  const [
    values = [],
    options = [],
    size = [],
    headers = [],
    itemBytes = [],
    products = [],
    tagsAndOptions = [],
    vendors = [],
    types = [],
    availability = [],
    memberships = [],
    wordRows = [],
    stops = [],
    lengthRows = [],
    [sums] = [],
    [slotRow] = [],
  ] = results;
  const n = range ? range.to - range.from : Number(size[0]?.size ?? 0);
  /** A list of catalog positions as the shard numbers them. */
  const rebase = (list: Uint32Array) => {
    if (from !== 0) for (let i = 0; i < list.length; i++) list[i] = (list[i] as number) - from;
    return list;
  };

  const prices = new Float64Array(n).fill(Number.NaN);
  const created = new Float64Array(n);
  const titles = new Uint32Array(n);
  const handles: string[] = new Array<string>(n).fill("");
  const titleKeys: string[] = new Array<string>(n).fill("");
  for (const [id, price, made, rank, handle, tkey] of records(products, " ")) {
    const p = Number(id) - from;
    prices[p] = Number(price);
    created[p] = Number(made);
    titles[p] = Number(rank);
    handles[p] = handle ?? "";
    titleKeys[p] = fromHex(tkey ?? "");
  }

  const byValue = grouped(
    [...tagsAndOptions, ...vendors, ...types, ...availability].map((row) => [String(row.vid), rebase(ids(row.ids))]),
  );
  const ranked = new Map<string, [number, number][]>();
  for (const [c = "", r, pid] of records(memberships, " ")) {
    const list = ranked.get(c) ?? [];
    list.push([Number(r), Number(pid) - from]);
    ranked.set(c, list);
  }
  const collections = new Map<string, CollectionData>();
  for (const row of headers) {
    const handle = String(row.handle);
    const list = (ranked.get(handle) ?? []).sort((a, b) => a[0] - b[0]);
    const members = Uint32Array.from(list, ([, pid]) => pid);
    collections.set(handle, {
      title: String(row.title),
      n: Number(row.n),
      members,
      ...(range || layer ? { ranks: Uint32Array.from(list, ([rank]) => rank) } : {}),
    });
  }

  const perWord = new Map<string, [Uint32Array[], Uint32Array[]]>();
  for (const [word = "", list, weights] of records(wordRows, " ")) {
    let found = ids(list);
    let wts = ids(weights);
    if (range) {
      // A row's ids ascend: keep those in the shard's range.
      const a = found.findIndex((id) => id >= from);
      const b = a < 0 ? a : found.findIndex((id) => id >= range.to);
      const [start, end] = a < 0 ? [0, 0] : [a, b < 0 ? found.length : b];
      if (end <= start) continue;
      found = rebase(found.slice(start, end));
      wts = wts.slice(start, end);
    }
    const lists = perWord.get(word) ?? ([[], []] as [Uint32Array[], Uint32Array[]]);
    perWord.set(word, lists);
    lists[0].push(found);
    lists[1].push(wts);
  }
  const sorted = [...perWord.keys()].sort();
  const starts = new Uint32Array(sorted.length + 1);
  sorted.forEach((word, i) => {
    starts[i + 1] = (starts[i] as number) + total(perWord.get(word)?.[0] ?? []);
  });
  const wordIds = new Uint32Array(starts[sorted.length] as number);
  const weights = packed ? new Uint32Array(wordIds.length) : new Uint16Array(wordIds.length);
  sorted.forEach((word, i) => {
    const [lists = [], wts = []] = perWord.get(word) ?? [];
    copyInto(lists, wordIds, starts[i] as number);
    let at = starts[i] as number;
    for (const w of wts) {
      weights.set(w, at);
      at += w.length;
    }
  });
  const items = await readItems(store, version, [from, from + n], Number(itemBytes[0]?.bytes ?? 0));
  const stop = stops.map((row) => String(row.k));
  const lengths = { title: new Uint16Array(n), description: new Uint16Array(n) };
  for (const [id, tl, dl] of records(lengthRows, " ")) {
    lengths.title[Number(id) - from] = Number(tl);
    lengths.description[Number(id) - from] = Number(dl);
  }
  const catalog = range?.products ?? Number(row?.products ?? 0);
  return {
    size: n,
    values: values.map((row) => ({ f: String(row.f), k: String(row.k), d: String(row.d) }) satisfies FacetValueRow),
    postings: values.map((row) => (byValue.get(String(row.id)) ?? new Uint32Array(0)).sort()),
    options: options.map((row) => String(row.name)),
    prices,
    created,
    titles,
    titleKeys,
    handles,
    items,
    collections,
    words: { words: sorted, starts, ids: wordIds, weights, stop, ...(packed ? { packed: true } : {}) },
    scoring: packed
      ? {
          n: Number(sums?.n ?? catalog),
          title: Number(sums?.title ?? 0),
          description: Number(sums?.description ?? 0),
          lengths,
        }
      : { n: catalog },
    ...(range ? { shard: { offset: range.from, products: range.products } } : {}),
    ...(layer ? { slots: ids(slotRow?.ids) } : {}),
  };
}

/**
 * Every product's (of positions [from, to)) list item and featured image JSON (JSON text holds no raw tab or line break),
 * packed as UTF-8 into one buffer of the size D1 reports (`bytes`), a batch at a time: one
 * allocation instead of two strings per product, and no more than a batch of rows held at once.
 */
async function readItems(
  store: BrowseReader,
  version: string,
  [first, last]: [from: number, to: number],
  bytes: number,
): Promise<Items> {
  const size = last - first;
  const i = browseTable(version, "i");
  const statement = (from: number, to: number): Statement => ({
    sql:
      `SELECT group_concat(id || char(9) || item || char(9) || img, char(10) ORDER BY id) AS ` +
      `lines FROM ${i} WHERE id >= ?1 AND id < ?2 GROUP BY id >> ${ITEM_ROW_BITS} ORDER BY id ` +
      `>> ${ITEM_ROW_BITS}`,
    params: [from, to],
  });
  const encoder = new TextEncoder();
  const text = new Uint8Array(bytes);
  // Where each product's two texts are, filled in as they come; then made cumulative.
  const at = new Uint32Array(size * 2);
  const lengths = new Uint32Array(size * 2);
  let end = 0;
  const put = (k: number, t: string) => {
    const { written } = encoder.encodeInto(t, text.subarray(end));
    at[k] = end;
    lengths[k] = written;
    end += written;
  };
  for (let from = first; from < last; from += ITEM_IDS * ITEM_STATEMENTS) {
    const batch: Statement[] = [];
    for (let s = from; s < Math.min(last, from + ITEM_IDS * ITEM_STATEMENTS); s += ITEM_IDS)
      batch.push(statement(s, Math.min(last, s + ITEM_IDS)));
    for (const [id, item = "", img = "null"] of records((await store.batch(batch)).flat(), "\t")) {
      put((Number(id) - first) * 2, item);
      put((Number(id) - first) * 2 + 1, img);
    }
  }
  // Rows come in id order, so the texts are already in place; the starts say where each ends.
  const starts = new Uint32Array(size * 2 + 1);
  for (let k = 0; k < size * 2; k++) {
    if (lengths[k] !== 0 && at[k] !== starts[k]) throw new Error("browse items came out of id order");
    starts[k + 1] = (starts[k] as number) + (lengths[k] as number);
  }
  return { text, starts };
}
