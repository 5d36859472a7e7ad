import type { CollectionListItem } from "../catalog/api.ts";
import {
  CHUNK_SPAN,
  CHUNK_STEP,
  type CollectionHeader,
  CONTENT_PER_SHARD,
  CONTENT_SHARD_BYTES,
  chunkCount,
  type ImageRecord,
  keys,
  PRODUCTS_PER_SHARD,
  type ProductRecord,
  shardCount,
  shardOf,
  type StoredProductVariant,
  type StoredVariant,
  VARIANTS_PER_SHARD,
  type VersionMeta,
  variantOptions,
  variantTitle,
} from "../catalog/layout.ts";
import { renderCollectionProduct, renderListItem } from "../catalog/render.ts";
import { optionApiName, type SourceCatalog, type SourceProduct, type SourceVariant } from "../catalog/schema.ts";
import { toMinor } from "../money.ts";
import { contentEstimate, contentLine, featuredImage } from "./content.ts";
import { sha256Hex } from "../sha256.ts";

/** One KV write. Values are strings so the same entries feed a binding or `wrangler kv bulk put`. */
export interface KvEntry {
  key: string;
  value: string;
}

/** About this many bytes of product JSON per hashed piece of catalogDigest. */
const DIGEST_PIECE = 1 << 20;

/**
 * SHA-256 of the validated catalog, hex: equal digests mean an identical catalog. Hashed piece by
 * piece (products as JSON lines, about DIGEST_PIECE bytes a piece, then the digest of the piece
 * digests with the rest of the catalog), so no string of the whole catalog is ever built: at
 * 100,000 products JSON.stringify of the catalog held ~450 MiB at once (Node RSS 692 -> 1,141 MiB).
 * JSON text has no raw newline, so the lines and pieces cannot be read two ways.
 */
export async function catalogDigest(catalog: SourceCatalog): Promise<string> {
  const { products, ...rest } = catalog;
  const pieces: string[] = [];
  let lines: string[] = [];
  let size = 0;
  for (const product of products) {
    const line = JSON.stringify(product);
    lines.push(line);
    size += line.length;
    if (size >= DIGEST_PIECE) {
      pieces.push(await sha256Hex(lines.join("\n")));
      lines = [];
      size = 0;
    }
  }
  if (lines.length > 0) pieces.push(await sha256Hex(lines.join("\n")));
  return sha256Hex(`${JSON.stringify(rest)}\n${products.length}\n${pieces.join("\n")}`);
}

/** The meta of a version about to be written: counts and shard counts fix every key name. */
export function planVersion(catalog: SourceCatalog, version: string, digest: string, now = new Date()): VersionMeta {
  const variants = catalog.products.reduce((sum, p) => sum + p.variants.length, 0);
  const contentBytes = catalog.products.reduce((sum, p) => sum + contentEstimate(p), 0);
  return {
    version,
    digest,
    published_at: now.toISOString(),
    products: catalog.products.length,
    collections: catalog.collections.length,
    product_shards: shardCount(catalog.products.length, PRODUCTS_PER_SHARD),
    variant_shards: shardCount(variants, VARIANTS_PER_SHARD),
    content_shards: Math.max(shardCount(catalog.products.length, CONTENT_PER_SHARD), Math.ceil(contentBytes / CONTENT_SHARD_BYTES)),
  };
}

/**
 * A variant in its product's record. A compare-at price not above the price is dropped (it
 * would advertise no saving); trailing empty fields are left out to keep shards small.
 */
function storedVariant(v: SourceVariant, names: readonly string[]): StoredProductVariant {
  const price = toMinor(v.price);
  const compareAt = v.compare_at_price ? toMinor(v.compare_at_price) : null;
  const extra = [v.sku || null, compareAt !== null && compareAt > price ? compareAt : null, v.image || null];
  while (extra.length > 0 && extra.at(-1) === null) extra.pop();
  return [v.id, names.map((n) => v.options[n] ?? ""), price, v.available, ...extra] as StoredProductVariant;
}

function productRecords(catalog: SourceCatalog): ProductRecord[] {
  const ranks = new Map<string, Record<string, number>>();
  for (const collection of catalog.collections) {
    collection.products.forEach((handle, rank) => {
      const entry = ranks.get(handle) ?? {};
      entry[collection.handle] = rank;
      ranks.set(handle, entry);
    });
  }
  return catalog.products.map((p, pos) => productRecord(p, pos, ranks.get(p.handle)));
}

/** A product's record as its shard stores it; `ranks` maps a collection handle to its position there. */
export function productRecord(p: SourceProduct, pos: number, ranks: Record<string, number> = {}): ProductRecord {
  const names = p.options.map((o) => o.name);
  return {
    pos,
    id: p.id,
    handle: p.handle,
    title: p.title,
    vendor: p.vendor,
    product_type: p.product_type,
    tags: p.tags,
    available: p.available,
    options: p.options.map((o) => ({ name: optionApiName(o.name), label: o.name, values: o.values })),
    variants: p.variants.map((v) => storedVariant(v, names)),
    in: ranks,
  };
}

/** Overlapping windows of CHUNK_SPAN lines every CHUNK_STEP positions; at least one chunk. */
function* chunksOf(lines: readonly string[]): Generator<[chunk: number, text: string]> {
  const total = chunkCount(lines.length);
  for (let k = 0; k < total; k++) yield [k, lines.slice(k * CHUNK_STEP, k * CHUNK_STEP + CHUNK_SPAN).join("\n")];
}

function groupBy<T>(items: readonly T[], shards: number, keyOf: (item: T) => string): Record<string, T>[] {
  const groups: Record<string, T>[] = Array.from({ length: shards }, () => ({}));
  for (const item of items) {
    const key = keyOf(item);
    const group = groups[shardOf(key, shards)];
    if (group) group[key] = item;
  }
  return groups;
}

/** How many entries `buildEntries` yields for a version, for progress output. */
export function entryCount(catalog: SourceCatalog, meta: VersionMeta): number {
  const collectionChunks = catalog.collections.reduce((sum, c) => sum + chunkCount(c.products.length), 0);
  const listChunks = chunkCount(meta.products) + collectionChunks;
  return 1 + meta.product_shards + meta.variant_shards + (meta.content_shards ?? 0) + 2 * listChunks + chunkCount(meta.collections);
}

/**
 * Every KV entry of one version, built from the catalog alone (no I/O), so it can be tested,
 * counted and written by any writer. Every shard is written, empty or not: a missing shard
 * then always means a missing version, never a missing product.
 */
export function* buildEntries(catalog: SourceCatalog, meta: VersionMeta): Generator<KvEntry> {
  const v = meta.version;
  yield { key: keys.meta(v), value: JSON.stringify(meta) };
  const records = productRecords(catalog);
  const shards = groupBy(records, meta.product_shards, (r) => r.handle);
  for (const [i, shard] of shards.entries()) yield { key: keys.productShard(v, i), value: JSON.stringify(shard) };

  // Straight into their shards: a list of every variant first, then a copy of each without its
  // id, held ~1 GiB more and took 5.8 s instead of 0.9 s at 100,000 products (Node RSS
  // 1,453 -> 2,877 MiB while building these).
  const variantShards: Record<string, StoredVariant>[] = Array.from({ length: meta.variant_shards }, () => ({}));
  for (const r of records) {
    const names = r.options.map((o) => o.name);
    for (const [id, values, price, available] of r.variants) {
      const shard = variantShards[shardOf(id, variantShards.length)];
      if (shard) shard[id] = { h: r.handle, t: r.title, vt: variantTitle(values), o: variantOptions(names, values), p: price, a: r.available && available };
    }
  }
  for (const [i, shard] of variantShards.entries()) yield { key: keys.variantShard(v, i), value: JSON.stringify(shard) };
  variantShards.length = 0;

  // Shard by shard, so only one shard's sanitised content is in memory at a time.
  const contentShards: SourceProduct[][] = Array.from({ length: meta.content_shards ?? 0 }, () => []);
  for (const product of catalog.products) contentShards[shardOf(product.handle, contentShards.length)]?.push(product);
  for (const [i, products] of contentShards.entries()) {
    const lines = products.flatMap((p) => contentLine(p) ?? []);
    yield { key: keys.contentShard(v, i), value: lines.join("\n") };
  }

  const featured = new Map<string, ImageRecord | null>(catalog.products.map((p) => [p.handle, featuredImage(p)]));
  const withImage = (line: object, handle: string) => JSON.stringify({ ...line, image: featured.get(handle) ?? null });

  for (const [k, text] of chunksOf(records.map((r) => JSON.stringify(renderListItem(r))))) yield { key: keys.productChunk(v, k), value: text };
  for (const [k, text] of chunksOf(records.map((r) => withImage(renderListItem(r), r.handle)))) yield { key: keys.productImageChunk(v, k), value: text };

  const collectionLines = catalog.collections.map((c) =>
    JSON.stringify({ object: "collection", handle: c.handle, title: c.title, products_count: c.products.length } satisfies CollectionListItem),
  );
  for (const [k, text] of chunksOf(collectionLines)) yield { key: keys.collectionChunk(v, k), value: text };

  const byHandle = new Map(records.map((r) => [r.handle, r]));
  for (const [pos, c] of catalog.collections.entries()) {
    const header = JSON.stringify({ handle: c.handle, title: c.title, count: c.products.length, pos } satisfies CollectionHeader);
    const members = c.products.flatMap((handle) => {
      const record = byHandle.get(handle);
      return record ? [renderCollectionProduct(record)] : [];
    });
    for (const [k, text] of chunksOf(members.map((m) => JSON.stringify(m)))) {
      yield { key: keys.collectionProductsChunk(v, c.handle, k), value: text ? `${header}\n${text}` : header };
    }
    for (const [k, text] of chunksOf(members.map((m) => withImage(m, m.handle)))) {
      yield { key: keys.collectionProductsImageChunk(v, c.handle, k), value: text ? `${header}\n${text}` : header };
    }
  }
}
