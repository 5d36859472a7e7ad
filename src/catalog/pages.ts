import { invalidParameter, notFound, soldOut, unknownParameter } from "./errors.ts";
import {
  DEFAULT_LIMIT,
  type ListInclude,
  type PageQuery,
  type ProductInclude,
  VARIANT_PAGING_PARAMS,
  type VariantQuery,
} from "./api.ts";
import { CHUNK_STEP, chunkFor, type ContentField, type ProductRecord, type VersionMeta } from "./layout.ts";
import { collectionBody, listBody, renderProduct, renderVariants } from "./render.ts";
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

function unknownCursor(param: "starting_after" | "ending_before", handle: string, where: string): never {
  throw invalidParameter(`No item with handle "${handle}" in ${where}.`, param);
}

async function productPosition(store: CatalogStore, meta: VersionMeta, q: PageQuery, inCollection?: string) {
  const param = q.starting_after !== undefined ? "starting_after" : "ending_before";
  const handle = q.starting_after ?? q.ending_before;
  if (handle === undefined) return { after: undefined, before: undefined };
  const record = await store.getProduct(meta, handle);
  const pos = inCollection === undefined ? record?.pos : record?.in[inCollection];
  if (pos === undefined) return { missing: { param, handle } as const, after: undefined, before: undefined };
  return param === "starting_after" ? { after: pos, before: undefined } : { after: undefined, before: pos };
}

/** What list pages may include (`?include=image`), parsed and sorted by the query schema. */
export interface ListOptions {
  include?: readonly ListInclude[] | undefined;
}

/**
 * `GET /products`: pointer + (cursor product's shard) + one list chunk (of the image series with
 * `include=image`), of a published version: a change batch's version writes no list chunks, its
 * browse engine answers (routes/browse-handlers.ts).
 */
export async function productListPage(
  store: CatalogStore,
  meta: VersionMeta,
  q: PageQuery & ListOptions,
): Promise<string> {
  const cursor = await productPosition(store, meta, q);
  if (cursor.missing) unknownCursor(cursor.missing.param, cursor.missing.handle, "the catalog");
  const w = pageWindow(meta.products, q.limit ?? DEFAULT_LIMIT, cursor.after, cursor.before);
  const lines =
    w.start < w.end ? sliceChunk(await store.productChunk(meta, w.chunk, q.include?.includes("image")), w) : [];
  return listBody(meta.products, lines, w.hasMore);
}

/** The members a product answers when its content line is absent (it has no content). */
function defaultContent(record: ProductRecord): Record<ContentField, string> {
  return {
    description: `"description_html":"","description_text":""`,
    images: `"images":[]`,
    seo: `"seo":${JSON.stringify({ title: record.title, description: null })}`,
  };
}

function contentOf(record: ProductRecord, line: string | null): Record<ContentField, string> {
  if (line === null) return defaultContent(record);
  const [, description = "", images = "", seo = ""] = line.split("\t");
  return { description, images, seo };
}

/**
 * `GET /products/{handle}`: pointer + one shard, and with `include` of description, images or
 * seo the product's content shard, read beside it. Included members follow the default ones in
 * a fixed order (description, images, seo, variants), whatever order `include` named them in.
 * Sold out is 404 sold_out, unknown 404 resource_missing.
 */
export async function productDetail(
  store: CatalogStore,
  meta: VersionMeta,
  handle: string,
  include: readonly ProductInclude[] = [],
): Promise<string> {
  const wantsContent = include.some((name) => name !== "variants");
  const [record, line] = await Promise.all([
    store.getProduct(meta, handle),
    wantsContent ? store.contentLine(meta, handle) : null,
  ]);
  if (!record) throw notFound(`No product has the handle "${handle}".`, "handle");
  if (!record.available) throw soldOut("handle");
  const body = JSON.stringify(renderProduct(record));
  if (include.length === 0) return body;
  const content = contentOf(record, line);
  const members: string[] = [];
  for (const field of ["description", "images", "seo"] as const)
    if (include.includes(field)) members.push(content[field]);
  if (include.includes("variants"))
    members.push(`"variants":${JSON.stringify(renderVariants(record, meta.stock_display === "quantity"))}`);
  return `${body.slice(0, -1)},${members.join(",")}}`;
}

const PAGING = new Set<string>(VARIANT_PAGING_PARAMS);

/** `one of: a, b, c` for an error message, cut after 20 values (a product may have 2,048 variants). */
function oneOf(values: readonly string[]): string {
  return `one of: ${values.slice(0, 20).join(", ")}${values.length > 20 ? `, and ${values.length - 20} more` : ""}`;
}

/**
 * The selectors of a variants query, checked against the product: `title` and its options' API
 * names. Unknown names come first (400 parameter_unknown, in name order), then values outside
 * the option's values (400 parameter_invalid).
 */
function selectorsOf(record: ProductRecord, q: VariantQuery): [name: string, value: string][] {
  const selectors = Object.entries(q)
    .filter(([name, value]) => !PAGING.has(name) && typeof value === "string")
    .sort(([a], [b]) => (a < b ? -1 : 1)) as [string, string][];
  const names = record.options.map((o) => o.name);
  const known = new Set(["title", ...names]);
  for (const [name] of selectors) {
    if (!known.has(name)) {
      const hint =
        names.length > 0
          ? `this product's options are ${names.join(", ")}`
          : "this product has no options; select it by title";
      throw unknownParameter(`Unknown query parameter: ${name} (${hint}).`, name);
    }
  }
  for (const [name, value] of selectors) {
    const option = record.options.find((o) => o.name === name);
    if (option && !option.values.includes(value)) {
      throw invalidParameter(`"${value}" is not a ${name} of this product (${oneOf(option.values)}).`, name);
    }
  }
  return selectors;
}

/** `GET /products/{handle}/variants`: pointer + one shard; sold-out products answer 200. */
export async function variantList(
  store: CatalogStore,
  meta: VersionMeta,
  handle: string,
  q: VariantQuery,
): Promise<string> {
  const record = await store.getProduct(meta, handle);
  if (!record) throw notFound(`No product has the handle "${handle}".`, "handle");
  const selectors = selectorsOf(record, q);
  const all = renderVariants(record, meta.stock_display === "quantity");
  const title = selectors.find(([name]) => name === "title")?.[1];
  if (title !== undefined && !all.some((v) => v.title === title)) {
    throw invalidParameter(`"${title}" is not a title of this product (${oneOf(all.map((v) => v.title))}).`, "title");
  }
  const variants = all.filter((v) =>
    selectors.every(([name, value]) => (name === "title" ? v.title === value : v.options[name] === value)),
  );
  const cursorId = q.starting_after ?? q.ending_before;
  const cursor = cursorId === undefined ? -1 : variants.findIndex((v) => v.id === cursorId);
  if (cursorId !== undefined && cursor < 0) {
    throw invalidParameter(
      `No variant with id ${cursorId} in this list.`,
      q.starting_after !== undefined ? "starting_after" : "ending_before",
    );
  }
  const w = pageWindow(
    variants.length,
    q.limit ?? DEFAULT_LIMIT,
    q.starting_after !== undefined ? cursor : undefined,
    q.ending_before !== undefined ? cursor : undefined,
  );
  return listBody(
    variants.length,
    variants.slice(w.start, w.end).map((v) => JSON.stringify(v)),
    w.hasMore,
  );
}

/** `GET /collections`: pointer + (cursor collection's first chunk) + one list chunk. */
export async function collectionListPage(store: CatalogStore, meta: VersionMeta, q: PageQuery): Promise<string> {
  const param = q.starting_after !== undefined ? "starting_after" : "ending_before";
  const handle = q.starting_after ?? q.ending_before;
  let pos: number | undefined;
  if (handle !== undefined) {
    pos = (await collectionHeaderOf(store, meta, handle))?.pos;
    if (pos === undefined) unknownCursor(param, handle, "the collections");
  }
  const w = pageWindow(
    meta.collections,
    q.limit ?? DEFAULT_LIMIT,
    param === "starting_after" ? pos : undefined,
    param === "ending_before" ? pos : undefined,
  );
  const lines = w.start < w.end ? sliceChunk(await store.collectionChunk(meta, w.chunk), w) : [];
  return listBody(meta.collections, lines, w.hasMore);
}

/** A collection's header: a change batch's collections table's, else its first chunk's; null for an unknown collection. */
async function collectionHeaderOf(store: CatalogStore, meta: VersionMeta, handle: string) {
  if (await store.cols(meta)) return store.collectionHeader(meta, handle);
  return (await store.collectionProductsChunk(meta, handle, 0))?.header ?? null;
}

function collectionMissing(handle: string): never {
  throw notFound(`No collection has the handle "${handle}".`, "handle");
}

/**
 * `GET /collections/{handle}`: pointer + one collection chunk (its header carries title and
 * count); with a cursor, the cursor product's shard first, for its rank in this collection. A
 * published version's, as the product list.
 */
export async function collectionDetail(
  store: CatalogStore,
  meta: VersionMeta,
  handle: string,
  q: PageQuery & ListOptions,
): Promise<string> {
  const cursor = await productPosition(store, meta, q, handle);
  if (cursor.missing) {
    if (!(await collectionHeaderOf(store, meta, handle))) collectionMissing(handle);
    unknownCursor(cursor.missing.param, cursor.missing.handle, "this collection");
  }
  const limit = q.limit ?? DEFAULT_LIMIT;
  // The chunk is chosen before the count is known: it is the cursor's own chunk (or the first),
  // which always exists and always holds the whole page.
  const chunk = pageWindow(Number.MAX_SAFE_INTEGER, limit, cursor.after, cursor.before).chunk;
  const read = await store.collectionProductsChunk(meta, handle, chunk, q.include?.includes("image"));
  if (!read) collectionMissing(handle);
  const { header, lines } = read;
  const w = pageWindow(header.count, limit, cursor.after, cursor.before);
  const products = listBody(header.count, w.start < w.end ? sliceChunk(lines, w) : [], w.hasMore);
  return collectionBody(header.handle, header.title, header.count, products);
}
