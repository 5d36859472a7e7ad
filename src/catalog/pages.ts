import { invalidParameter, notFound, soldOut } from "./errors.ts";
import { DEFAULT_LIMIT, type PageQuery, type Variant, type VariantQuery } from "./api.ts";
import { CHUNK_STEP, chunkFor, type VersionMeta } from "./layout.ts";
import { renderProduct, renderVariants } from "./render.ts";
import type { CatalogStore } from "./store.ts";

/**
 * The body of every catalog response, built from at most two store reads after the pointer
 * (one shard and/or one chunk). Bodies come back as JSON text; list items are spliced in as the
 * stored JSON lines, never parsed.
 */

interface Window {
  start: number;
  end: number;
  hasMore: boolean;
  /** The chunk holding positions start..end-1 (the cursor's own chunk after a starting_after). */
  chunk: number;
}

/** Stripe paging over positions 0..count-1, given the cursor's position when there is one. */
export function pageWindow(count: number, limit: number, after?: number, before?: number): Window {
  if (after !== undefined) {
    const start = after + 1;
    const end = Math.min(count, start + limit);
    return { start, end, hasMore: end < count, chunk: chunkFor(after) };
  }
  if (before !== undefined) {
    const start = Math.max(0, before - limit);
    return { start, end: before, hasMore: start > 0, chunk: chunkFor(start) };
  }
  const end = Math.min(count, limit);
  return { start: 0, end, hasMore: end < count, chunk: 0 };
}

function sliceChunk(lines: readonly string[], w: Window): string[] {
  const base = w.chunk * CHUNK_STEP;
  return lines.slice(w.start - base, w.end - base);
}

/** The list envelope, with the stored item lines spliced in as they are. */
export function listBody(count: number, lines: readonly string[], hasMore: boolean): string {
  return `{"object":"list","count":${count},"data":[${lines.join(",")}],"has_more":${hasMore}}`;
}

function unknownCursor(param: "starting_after" | "ending_before", handle: string, where: string): never {
  throw invalidParameter(`No item with handle "${handle}" in ${where}.`, param);
}

async function productPosition(store: CatalogStore, meta: VersionMeta, q: PageQuery, where: string, inCollection?: string) {
  const param = q.starting_after !== undefined ? "starting_after" : "ending_before";
  const handle = q.starting_after ?? q.ending_before;
  if (handle === undefined) return { after: undefined, before: undefined };
  const record = await store.getProduct(meta, handle);
  const pos = inCollection === undefined ? record?.pos : record?.in[inCollection];
  if (pos === undefined) return { missing: { param, handle } as const, after: undefined, before: undefined };
  return param === "starting_after" ? { after: pos, before: undefined } : { after: undefined, before: pos };
}

/** `GET /products`: pointer + (cursor product's shard) + one list chunk. */
export async function productListPage(store: CatalogStore, meta: VersionMeta, q: PageQuery): Promise<string> {
  const cursor = await productPosition(store, meta, q, "the catalog");
  if (cursor.missing) unknownCursor(cursor.missing.param, cursor.missing.handle, "the catalog");
  const w = pageWindow(meta.products, q.limit ?? DEFAULT_LIMIT, cursor.after, cursor.before);
  const lines = w.start < w.end ? sliceChunk(await store.productChunk(meta, w.chunk), w) : [];
  return listBody(meta.products, lines, w.hasMore);
}

/** `GET /products/{handle}`: pointer + one shard. Sold out is 404 sold_out, unknown 404 resource_missing. */
export async function productDetail(store: CatalogStore, meta: VersionMeta, handle: string): Promise<string> {
  const record = await store.getProduct(meta, handle);
  if (!record) throw notFound(`No product has the handle "${handle}".`, "handle");
  if (!record.available) throw soldOut("handle");
  return JSON.stringify(renderProduct(record));
}

const SELECTORS = ["size", "color", "title"] as const;

function selectorValues(variants: readonly Variant[], selector: (typeof SELECTORS)[number]): Set<string> {
  if (selector === "title") return new Set(variants.map((v) => v.title));
  return new Set(variants.flatMap((v) => (v.options[selector] === undefined ? [] : [v.options[selector]])));
}

/** `GET /products/{handle}/variants`: pointer + one shard; sold-out products answer 200. */
export async function variantList(store: CatalogStore, meta: VersionMeta, handle: string, q: VariantQuery): Promise<string> {
  const record = await store.getProduct(meta, handle);
  if (!record) throw notFound(`No product has the handle "${handle}".`, "handle");
  const all = renderVariants(record);
  let variants = all;
  for (const selector of SELECTORS) {
    const wanted = q[selector];
    if (wanted === undefined) continue;
    const allowed = selectorValues(all, selector);
    if (!allowed.has(wanted)) {
      const list = [...allowed];
      const hint = list.length > 0 ? `one of: ${list.join(", ")}` : `this product has no ${selector} option`;
      throw invalidParameter(`"${wanted}" is not a ${selector} of this product (${hint}).`, selector);
    }
    variants = variants.filter((v) => (selector === "title" ? v.title === wanted : v.options[selector] === wanted));
  }
  const cursorId = q.starting_after ?? q.ending_before;
  const cursor = cursorId === undefined ? -1 : variants.findIndex((v) => v.id === cursorId);
  if (cursorId !== undefined && cursor < 0) {
    throw invalidParameter(`No variant with id ${cursorId} in this list.`, q.starting_after !== undefined ? "starting_after" : "ending_before");
  }
  const w = pageWindow(variants.length, q.limit ?? DEFAULT_LIMIT, q.starting_after !== undefined ? cursor : undefined, q.ending_before !== undefined ? cursor : undefined);
  return listBody(variants.length, variants.slice(w.start, w.end).map((v) => JSON.stringify(v)), w.hasMore);
}

/** `GET /collections`: pointer + (cursor collection's first chunk) + one list chunk. */
export async function collectionListPage(store: CatalogStore, meta: VersionMeta, q: PageQuery): Promise<string> {
  const param = q.starting_after !== undefined ? "starting_after" : "ending_before";
  const handle = q.starting_after ?? q.ending_before;
  let pos: number | undefined;
  if (handle !== undefined) {
    pos = (await store.collectionProductsChunk(meta, handle, 0))?.header.pos;
    if (pos === undefined) unknownCursor(param, handle, "the collections");
  }
  const w = pageWindow(meta.collections, q.limit ?? DEFAULT_LIMIT, param === "starting_after" ? pos : undefined, param === "ending_before" ? pos : undefined);
  const lines = w.start < w.end ? sliceChunk(await store.collectionChunk(meta, w.chunk), w) : [];
  return listBody(meta.collections, lines, w.hasMore);
}

function collectionMissing(handle: string): never {
  throw notFound(`No collection has the handle "${handle}".`, "handle");
}

/**
 * `GET /collections/{handle}`: pointer + one collection chunk (its header carries title and
 * count); with a cursor, the cursor product's shard first, for its rank in this collection.
 */
export async function collectionDetail(store: CatalogStore, meta: VersionMeta, handle: string, q: PageQuery): Promise<string> {
  const cursor = await productPosition(store, meta, q, "this collection", handle);
  if (cursor.missing) {
    if (!(await store.collectionProductsChunk(meta, handle, 0))) collectionMissing(handle);
    unknownCursor(cursor.missing.param, cursor.missing.handle, "this collection");
  }
  const limit = q.limit ?? DEFAULT_LIMIT;
  // The chunk is chosen before the count is known: it is the cursor's own chunk (or the first),
  // which always exists and always holds the whole page.
  const chunk = pageWindow(Number.MAX_SAFE_INTEGER, limit, cursor.after, cursor.before).chunk;
  const read = await store.collectionProductsChunk(meta, handle, chunk);
  if (!read) collectionMissing(handle);
  const { header, lines } = read;
  const w = pageWindow(header.count, limit, cursor.after, cursor.before);
  const products = listBody(header.count, w.start < w.end ? sliceChunk(lines, w) : [], w.hasMore);
  return `{"object":"collection","handle":${JSON.stringify(header.handle)},"title":${JSON.stringify(header.title)},"products_count":${header.count},"products":${products}}`;
}
