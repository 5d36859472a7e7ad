import type { CollectionListItem } from "../catalog/api.ts";
import {
  CHUNK_SPAN,
  CHUNK_STEP,
  type CollectionHeader,
  CONTENT_PER_SHARD,
  type ImageRecord,
  CONTENT_SHARD_BYTES,
  chunkCount,
  keys,
  PRODUCTS_PER_SHARD,
  type ProductRecord,
  shardCount,
  shardOf,
  STOCK_CHUNK,
  type StoredProductVariant,
  type StoredVariant,
  VARIANTS_PER_SHARD,
  type VersionMeta,
  variantOptions,
  variantTitle,
} from "../catalog/layout.ts";
import { renderCollectionProduct, renderListItem } from "../catalog/render.ts";
import {
  optionApiName,
  productSells,
  type SourceProduct,
  type SourceVariant,
  variantSells,
} from "../catalog/schema.ts";
import { DEFAULT_CURRENCY, toMinor } from "../money.ts";
import { contentEstimate, contentLine, featuredImage, imageRecord } from "./content.ts";
import { sha256Hex } from "../sha256.ts";
import { type ProductList, type PublishCatalog, pause, productAt } from "./catalog-input.ts";

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
export async function catalogDigest(catalog: PublishCatalog): Promise<string> {
  const { products, ...rest } = catalog;
  const digest = new CatalogDigest();
  for (let pos = 0; pos < products.length; pos++) await digest.add(JSON.stringify(productAt(products, pos)));
  return digest.finish(rest);
}

/** catalogDigest fed a product at a time (`JSON.stringify` of each, in order), for a reader that never holds them all. */
export class CatalogDigest {
  readonly #pieces: string[] = [];
  #lines: string[] = [];
  #size = 0;
  #count = 0;

  async add(line: string): Promise<void> {
    this.#lines.push(line);
    this.#count++;
    this.#size += line.length;
    if (this.#size >= DIGEST_PIECE) await this.#piece();
  }

  async #piece(): Promise<void> {
    const text = this.#lines.join("\n");
    this.#lines = [];
    this.#size = 0;
    this.#pieces.push(await sha256Hex(text));
  }

  /** The digest, given every field of the catalog but its products. */
  async finish(rest: object): Promise<string> {
    if (this.#lines.length > 0) await this.#piece();
    return sha256Hex(`${JSON.stringify(rest)}\n${this.#count}\n${this.#pieces.join("\n")}`);
  }
}

/** The meta of a version about to be written: counts and shard counts fix every key name. */
export function planVersion(catalog: PublishCatalog, version: string, digest: string, now = new Date()): VersionMeta {
  let variants = 0;
  let contentBytes = 0;
  let tracked = 0;
  for (let pos = 0; pos < catalog.products.length; pos++) {
    const p = productAt(catalog.products, pos);
    variants += p.variants.length;
    contentBytes += contentEstimate(p);
    for (const v of p.variants) if (v.inventory_quantity !== undefined) tracked++;
  }
  return {
    version,
    digest,
    published_at: now.toISOString(),
    products: catalog.products.length,
    collections: catalog.collections.length,
    product_shards: shardCount(catalog.products.length, PRODUCTS_PER_SHARD),
    variant_shards: shardCount(variants, VARIANTS_PER_SHARD),
    content_shards: Math.max(
      shardCount(catalog.products.length, CONTENT_PER_SHARD),
      Math.ceil(contentBytes / CONTENT_SHARD_BYTES),
    ),
    ...(catalog.currency !== DEFAULT_CURRENCY ? { currency: catalog.currency } : {}),
    ...(tracked > 0 ? { stock_tracked: tracked, stock_chunks: Math.ceil(tracked / STOCK_CHUNK) } : {}),
    ...(catalog.stock_display === "quantity" ? { stock_display: "quantity" as const } : {}),
    ...(catalog.variant_ids === "store" ? { variant_ids: "store" as const } : {}),
  };
}

/**
 * A variant in its product's record. A compare-at price not above the price is dropped (it
 * would advertise no saving); trailing empty fields are left out to keep shards small.
 */
function storedVariant(v: SourceVariant, names: readonly string[], currency: string): StoredProductVariant {
  const price = toMinor(v.price, currency);
  const compareAt = v.compare_at_price ? toMinor(v.compare_at_price, currency) : null;
  const tracked = v.inventory_quantity !== undefined;
  const extra = [
    v.sku || null,
    compareAt !== null && compareAt > price ? compareAt : null,
    v.image || null,
    tracked ? v.inventory_quantity : null,
    tracked && v.inventory_policy === "continue" ? "continue" : null,
    v.requires_shipping === false ? false : null,
  ];
  while (extra.length > 0 && extra.at(-1) === null) extra.pop();
  return [v.id, names.map((n) => v.options[n] ?? ""), price, variantSells(v), ...extra] as StoredProductVariant;
}

/** A product's line in the product list, and with its featured image (`?include=image`). */
export function listLines(record: ProductRecord, image: ImageRecord | null): [plain: string, withImage: string] {
  const item = renderListItem(record);
  return [JSON.stringify(item), JSON.stringify({ ...item, image })];
}

/** A product's line in a collection's products, and with its featured image. */
export function collectionLines(record: ProductRecord, image: ImageRecord | null): [plain: string, withImage: string] {
  const item = renderCollectionProduct(record);
  return [JSON.stringify(item), JSON.stringify({ ...item, image })];
}

/** A collection's line in the collection list. */
export function collectionListLine(handle: string, title: string, count: number): string {
  return JSON.stringify({
    object: "collection",
    handle,
    title,
    products_count: count,
  } satisfies CollectionListItem);
}

/**
 * A variant as the cart reads it from its variant shard (`StoredVariant`): what a line shows and
 * what pricing needs (shipping, weight, the product's collections), without the product. The one
 * place that record is made: a publish and a change batch both call it.
 */
export function variantRecord(
  p: SourceProduct,
  v: SourceVariant,
  ranks: Record<string, number> = {},
  currency: string = DEFAULT_CURRENCY,
): StoredVariant {
  const [, values, price, available, sku, compareAt] = storedVariant(
    v,
    p.options.map((o) => o.name),
    currency,
  );
  const names = p.options.map((o) => optionApiName(o.name));
  const collections = Object.keys(ranks);
  const own = v.image ? p.images?.find((i) => i.url === v.image) : undefined;
  const image = v.image
    ? own
      ? imageRecord(own)
      : { url: v.image, alt: null, width: null, height: null }
    : featuredImage(p);
  return {
    h: p.handle,
    t: p.title,
    vt: variantTitle(values),
    o: variantOptions(names, values),
    p: price,
    a: productSells(p) && available,
    ...(currency !== DEFAULT_CURRENCY ? { c: currency } : {}),
    ...(v.inventory_quantity !== undefined ? { q: v.inventory_quantity } : {}),
    ...(v.inventory_quantity !== undefined && v.inventory_policy === "continue" ? { pc: 1 as const } : {}),
    ...(v.requires_shipping === false ? { rs: 0 as const } : {}),
    ...(v.weight_grams !== undefined ? { w: v.weight_grams } : {}),
    ...(collections.length > 0 ? { cl: collections } : {}),
    ...(sku ? { s: sku } : {}),
    ...(compareAt != null ? { ca: compareAt } : {}),
    ...(image ? { im: image } : {}),
  };
}

/** Each product's rank in each collection that holds it: handle -> collection handle -> rank. */
function collectionRanks(catalog: PublishCatalog): Map<string, Record<string, number>> {
  const ranks = new Map<string, Record<string, number>>();
  for (const collection of catalog.collections) {
    collection.products.forEach((handle, rank) => {
      const entry = ranks.get(handle) ?? {};
      entry[collection.handle] = rank;
      ranks.set(handle, entry);
    });
  }
  return ranks;
}

/** A product's record as its shard stores it; `ranks` maps a collection handle to its position there. */
export function productRecord(
  p: SourceProduct,
  pos: number,
  ranks: Record<string, number> = {},
  currency = DEFAULT_CURRENCY,
): ProductRecord {
  const names = p.options.map((o) => o.name);
  return {
    pos,
    id: p.id,
    handle: p.handle,
    title: p.title,
    vendor: p.vendor,
    product_type: p.product_type,
    tags: p.tags,
    available: productSells(p),
    options: p.options.map((o) => ({ name: optionApiName(o.name), label: o.name, values: o.values })),
    variants: p.variants.map((v) => storedVariant(v, names, currency)),
    in: ranks,
    ...(currency !== DEFAULT_CURRENCY ? { currency } : {}),
  };
}

/**
 * Overlapping windows of CHUNK_SPAN lines every CHUNK_STEP positions (at least one chunk) over
 * `count` lines made on demand by `lineAt`: only the lines of the windows being joined are held,
 * not every line of the list, and each line is made once.
 */
export function* chunksOf(count: number, lineAt: (index: number) => string): Generator<[chunk: number, text: string]> {
  const blocks = new Map<number, string[]>();
  const block = (b: number): string[] => {
    let lines = blocks.get(b);
    if (!lines) {
      lines = [];
      for (let i = b * CHUNK_STEP; i < Math.min(count, (b + 1) * CHUNK_STEP); i++) lines.push(lineAt(i));
      blocks.set(b, lines);
    }
    return lines;
  };
  const total = chunkCount(count);
  for (let k = 0; k < total; k++) {
    for (const b of blocks.keys()) if (b < k) blocks.delete(b);
    const end = Math.min(count, k * CHUNK_STEP + CHUNK_SPAN);
    const lines: string[] = [];
    for (let b = k; b * CHUNK_STEP < end; b++) lines.push(...block(b));
    yield [k, lines.slice(0, CHUNK_SPAN).join("\n")];
  }
}

/** Every product's handle, in order. */
export async function handlesOf(products: ProductList): Promise<string[]> {
  const handles: string[] = [];
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    handles.push(productAt(products, pos).handle);
  }
  return handles;
}

/** Positions 0..count-1 grouped by shard, in order, so each shard can be filled on its own. */
function positionsByShard(count: number, shards: number, keyAt: (index: number) => string): number[][] {
  const groups: number[][] = Array.from({ length: shards }, () => []);
  for (let i = 0; i < count; i++) groups[shardOf(keyAt(i), shards)]?.push(i);
  return groups;
}

/** How many entries `buildEntries` yields for a version, for progress output. */
export function entryCount(catalog: PublishCatalog, meta: VersionMeta): number {
  const collectionChunks = catalog.collections.reduce((sum, c) => sum + chunkCount(c.products.length), 0);
  const listChunks = chunkCount(meta.products) + collectionChunks;
  return (
    1 +
    meta.product_shards +
    meta.variant_shards +
    (meta.content_shards ?? 0) +
    (meta.stock_chunks ?? 0) +
    2 * listChunks +
    chunkCount(meta.collections)
  );
}

/**
 * Every KV entry of one version, built from the catalog alone (no I/O), so it can be tested,
 * counted and written by any writer. Every shard is written, empty or not: a missing shard
 * then always means a missing version, never a missing product.
 *
 * Entry by entry: each shard, chunk and content line is made from the catalog when its entry is
 * due and dropped once yielded, so beside the catalog only the entries being written are held.
 * Holding every product record (~150 MiB at 100,000 products), every variant shard, every list
 * line and every featured image at once put ~250 MiB more in the heap for the whole publish,
 * and V8 lets a heap grow to about 2.6 times what it holds before it collects: Node peaked at
 * 1,742 MiB RSS for that catalog (see "Memory" in publish.ts).
 */
export async function* buildEntries(catalog: PublishCatalog, meta: VersionMeta): AsyncGenerator<KvEntry> {
  const v = meta.version;
  const products = catalog.products;
  yield { key: keys.meta(v), value: JSON.stringify(meta) };
  const ranks = collectionRanks(catalog);
  const recordAt = (pos: number): ProductRecord => {
    const p = productAt(products, pos);
    return productRecord(p, pos, ranks.get(p.handle), catalog.currency);
  };
  // The handles once (a product list on disk parses a product at each `at`).
  const handles = await handlesOf(products);
  const handleAt = (pos: number) => handles[pos] as string;

  for (const [i, positions] of positionsByShard(products.length, meta.product_shards, handleAt).entries()) {
    const shard: Record<string, ProductRecord> = {};
    for (const pos of positions) shard[handleAt(pos)] = recordAt(pos);
    yield { key: keys.productShard(v, i), value: JSON.stringify(shard) };
  }

  // Each variant shard from the product and variant positions it holds, in catalog order.
  const variantShards: number[][] = Array.from({ length: meta.variant_shards }, () => []);
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    productAt(products, pos).variants.forEach((variant, index) => {
      variantShards[shardOf(variant.id, variantShards.length)]?.push(pos, index);
    });
  }
  for (const [i, members] of variantShards.entries()) {
    const shard: Record<string, StoredVariant> = {};
    for (let m = 0; m < members.length; m += 2) {
      const p = productAt(products, members[m]!);
      const source = p.variants[members[m + 1]!]!;
      shard[source.id] = variantRecord(p, source, ranks.get(p.handle), catalog.currency);
    }
    variantShards[i] = [];
    yield { key: keys.variantShard(v, i), value: JSON.stringify(shard) };
  }

  // The tracked variants' levels, for the Stock objects (src/stock/publish-levels.ts).
  if (meta.stock_chunks) {
    let lines: string[] = [];
    let chunk = 0;
    for (let pos = 0; pos < products.length; pos++) {
      await pause(pos);
      for (const variant of productAt(products, pos).variants) {
        if (variant.inventory_quantity === undefined) continue;
        lines.push(`${variant.id}\t${variant.inventory_quantity}\t${variant.inventory_policy ?? "deny"}`);
        if (lines.length === STOCK_CHUNK) {
          yield { key: keys.stockChunk(meta.version, chunk++), value: lines.join("\n") };
          lines = [];
        }
      }
    }
    if (lines.length > 0) yield { key: keys.stockChunk(meta.version, chunk++), value: lines.join("\n") };
  }

  // Shard by shard, so only one shard's sanitised content is in memory at a time.
  for (const [i, positions] of positionsByShard(products.length, meta.content_shards ?? 0, handleAt).entries()) {
    const lines = positions.flatMap((pos) => contentLine(productAt(products, pos)) ?? []);
    yield { key: keys.contentShard(v, i), value: lines.join("\n") };
  }

  const withImage = (line: object, pos: number) =>
    JSON.stringify({ ...line, image: featuredImage(productAt(products, pos)) });
  for (const [k, text] of chunksOf(products.length, (pos) => JSON.stringify(renderListItem(recordAt(pos)))))
    yield { key: keys.productChunk(v, k), value: text };
  for (const [k, text] of chunksOf(products.length, (pos) => withImage(renderListItem(recordAt(pos)), pos)))
    yield { key: keys.productImageChunk(v, k), value: text };

  const collectionLines = catalog.collections.map((c) =>
    JSON.stringify({
      object: "collection",
      handle: c.handle,
      title: c.title,
      products_count: c.products.length,
    } satisfies CollectionListItem),
  );
  for (const [k, text] of chunksOf(collectionLines.length, (i) => collectionLines[i]!))
    yield { key: keys.collectionChunk(v, k), value: text };

  const positions = new Map(handles.map((handle, pos) => [handle, pos]));
  for (const [index, c] of catalog.collections.entries()) {
    const header = JSON.stringify({
      handle: c.handle,
      title: c.title,
      count: c.products.length,
      pos: index,
    } satisfies CollectionHeader);
    const members = c.products.flatMap((handle) => positions.get(handle) ?? []);
    const member = (i: number) => renderCollectionProduct(recordAt(members[i]!));
    for (const [k, text] of chunksOf(members.length, (i) => JSON.stringify(member(i)))) {
      yield { key: keys.collectionProductsChunk(v, c.handle, k), value: text ? `${header}\n${text}` : header };
    }
    for (const [k, text] of chunksOf(members.length, (i) => withImage(member(i), members[i]!))) {
      yield { key: keys.collectionProductsImageChunk(v, c.handle, k), value: text ? `${header}\n${text}` : header };
    }
  }
}
