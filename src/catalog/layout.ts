import type { DerivedMeta } from "./derived.ts";

/**
 * The KV layout of a published catalog, shared by the writer (publish.ts) and the reader
 * (store.ts) so the two cannot disagree. The design and its numbers are written down at the top
 * of publish.ts.
 */

/** The one key that selects the live catalog version. Switching it is the publish. */
export const POINTER_KEY = "catalog:pointer";

/** List chunks hold CHUNK_SPAN items and start every CHUNK_STEP positions. */
export const CHUNK_STEP = 250;
export const CHUNK_SPAN = 500;
/** The largest page a list request may ask for: any such page fits inside one chunk. */
export const MAX_PAGE = CHUNK_SPAN - CHUNK_STEP;

/** Target records per shard; shard counts are fixed per version and stored in its meta. */
export const PRODUCTS_PER_SHARD = 64;
export const VARIANTS_PER_SHARD = 64;
/**
 * Content shards (descriptions, images, SEO) are sized by bytes rather than by count, since one
 * description may be a few bytes or half a megabyte: about CONTENT_SHARD_BYTES each, and never
 * more than CONTENT_PER_SHARD products on average.
 */
export const CONTENT_PER_SHARD = 64;
export const CONTENT_SHARD_BYTES = 96 * 1024;

/** What one version is: enough to address every key of it without listing. */
export interface VersionMeta {
  version: string;
  /** SHA-256 of the validated source catalog: same digest, same catalog. */
  digest: string;
  published_at: string;
  products: number;
  collections: number;
  product_shards: number;
  variant_shards: number;
  /**
   * Absent in versions published before product content existed: such a version (kept for a
   * rollback) answers every include as if no product had content.
   */
  content_shards?: number;
  /** ISO 4217; absent for USD (the seed's, and every version published before currencies). */
  currency?: string;
  /** How many shards its browse index is cut into (browse/shards.ts); absent for one (every catalog up to the publish's shard size). */
  browse_shards?: number;
  /**
   * A change batch's version (issue 45): its catalog is browsed by its root's shards (`root`, a
   * full publish, `shards` of them), by the layers earlier batches froze (`frozen`, oldest first;
   * absent: none) and by the index of the products changed since the last of them (`layer`, null
   * when none is left), each told what differs by the version's overlay (browse/overlay.ts).
   */
  browse_overlay?: { root: string; shards: number; layer: string | null; frozen?: string[] };
  /** A change batch's version (issue 45): which versions its entries are read from (derived.ts). */
  derived?: DerivedMeta;
  /**
   * Tracked variants (with an `inventory_quantity`) and the chunks listing their levels
   * (`keys.stockChunk`), which the worker writes into the Stock objects once per version.
   * Absent: none tracked.
   */
  stock_tracked?: number;
  stock_chunks?: number;
  /** `quantity`: variants answer `quantity_available`. Absent: `availability`. */
  stock_display?: "quantity";
  /**
   * The publish's place in the history (its entry's `seq`): a version older than the newest one a
   * Stock shard wrote is a rollback's, which writes no level. Absent in versions published before it.
   */
  stock_seq?: number;
  /** `catalog:publish --stock replace`: every level of the file is written, whatever live stock holds. */
  stock_replace?: true;
  /**
   * A change batch's version (contract 11): its stock chunks hold only what the batch changed, a
   * level line for each variant of an upserted product it tracks and `<id>\t-` for each variant it
   * stops tracking (parseStockDelta); a Stock shard brings itself to the version before it first.
   */
  stock_delta?: true;
  /** Present when the catalog's variant ids are the store's own Shopify ids (a checkout may hand off to a Shopify cart permalink). */
  variant_ids?: "store";
}

/** The value under POINTER_KEY: the live version and the one a rollback returns to. */
export interface Pointer {
  current: VersionMeta;
  previous: VersionMeta | null;
}

/**
 * The publish history: every publish and rollback, oldest first, appended under the
 * publish lock and never rewritten. Outside `v/`, so no cleanup touches it.
 */
export const HISTORY_KEY = "catalog:history";

export interface HistoryEntry {
  /** 1, 2, 3... in the order the actions took effect. */
  seq: number;
  at: string;
  /** `batch`: a change batch's version (contract section 11), derived from the version live before. */
  action: "publish" | "rollback" | "batch";
  /** The version that went live. */
  version: string;
  /** The version that was live before (null for the first publish). */
  from: string | null;
  products: number;
  /** The file published, when the publisher knew it. */
  source?: string;
  /** Who ran it (user@host), when known. */
  by?: string;
  /** The live version's meta, so a rollback can return to any kept version. */
  meta: VersionMeta;
  /** A change batch: what it named (products upserted or deleted, collections upserted or deleted). */
  changed?: { products: number; collections: number };
  /**
   * Absent once the action took effect. A publish writes its entry as `publishing` before its
   * pointer switch and completes it after, so a publish killed in between leaves an entry the
   * next holder of the lock settles: completed when its version went live, else `abandoned`
   * (its keys, tables and snapshots deleted).
   */
  state?: "publishing" | "abandoned" | ReleaseState;
  /**
   * A release scheduled for a set second (`catalog:publish --at`, `catalog:apply --at`): its version
   * is written and kept, its entry `scheduled` until that second, then `released` (and a new entry
   * records it going live) or `canceled` (by the operator, or because a batch's base version was no
   * longer live at its second: `reason` says which). See src/publish/release.ts.
   */
  release_at?: string;
  reason?: string;
}

/** The states of a scheduled release's history entry. */
export type ReleaseState = "scheduled" | "released" | "canceled";

/** Every key of a version starts with this, so a version can be listed and deleted as a whole. */
export function versionPrefix(version: string): string {
  return `v/${version}/`;
}

export const keys = {
  meta: (version: string) => `v/${version}/meta`,
  productShard: (version: string, shard: number) => `v/${version}/ps/${shard}`,
  variantShard: (version: string, shard: number) => `v/${version}/vs/${shard}`,
  contentShard: (version: string, shard: number) => `v/${version}/cs/${shard}`,
  productChunk: (version: string, chunk: number) => `v/${version}/pl/${chunk}`,
  /** The same list with each item's featured image (`?include=image`). */
  productImageChunk: (version: string, chunk: number) => `v/${version}/pli/${chunk}`,
  collectionChunk: (version: string, chunk: number) => `v/${version}/cl/${chunk}`,
  collectionProductsChunk: (version: string, handle: string, chunk: number) => `v/${version}/c/${handle}/${chunk}`,
  collectionProductsImageChunk: (version: string, handle: string, chunk: number) =>
    `v/${version}/ci/${handle}/${chunk}`,
  /** Tracked variants' levels from the file, STOCK_CHUNK lines of `<id>\t<quantity>\t<policy>`. */
  stockChunk: (version: string, chunk: number) => `v/${version}/st/${chunk}`,
};

/**
 * Live stock's overlay on every catalog version: the variants (and so the products) whose
 * availability, or with `stock_display: quantity` whose count, live stock has changed since the
 * file's levels were written. Written by the stock room (src/stock, one writer, at most once a
 * second), read beside the pointer; outside `v/`, so no cleanup touches it.
 */
export const STOCK_OVERLAY_KEY = "stock:overlay";

export interface StockOverlay {
  /** Grows with every write (the browse engine's memo key for its live-stock delta). */
  gen: number;
  /** Product handle -> 1 available / 0 sold out, where live stock differs from the file. */
  p: Record<string, 0 | 1>;
  /** Variant id -> [1 in stock / 0 sold out, units left to take]. */
  v: Record<string, [0 | 1, number]>;
  /**
   * Variants whose stock the operator tracks and no catalog version does (sorted): an add to cart
   * reads their Stock object, as it does for a variant the catalog tracks. Absent: none.
   */
  t?: string[];
  /**
   * Digests of what an answer can depend on, for the catalog's cache keys (see `stockKeyPart`):
   * `d` of `p` and `v` (browse answers), `pd` of `p` (product lists), `h` per product handle of its
   * own entries (a product and its variants). The empty string where there is nothing: such an
   * answer is the file's, cached under the version alone. Equal digests mean equal answers, so
   * stock flipping back to a state seen before finds that state's answers still cached.
   */
  d?: string;
  pd?: string;
  h?: Record<string, string>;
}

export const EMPTY_OVERLAY: StockOverlay = { gen: 0, p: {}, v: {}, d: "", pd: "", h: {} };

/** Which part of the overlay an answer shows: one product's, product lists' (`p`), or all of it (browse). */
export type StockScope = { product: string } | "items" | "all";

/**
 * The part of a catalog cache key that stands for live stock: the digest of the overlay entries
 * `scope` shows, or "" when it shows none (the answer is the file's). An overlay written before
 * digests existed falls back to its generation (every change misses).
 */
export function stockKeyPart(overlay: StockOverlay, scope: StockScope): string {
  if (overlay.gen === 0) return "";
  if (overlay.d === undefined || overlay.pd === undefined || overlay.h === undefined) return `g${overlay.gen}`;
  if (scope === "all") return overlay.d;
  if (scope === "items") return overlay.pd;
  return overlay.h[scope.product] ?? "";
}

/** Levels per stock chunk of a version. */
export const STOCK_CHUNK = 5000;

/** A change batch's stock chunk (VersionMeta.stock_delta): its levels as parseStockChunk's, and the variants it stops tracking. */
export function parseStockDelta(text: string): {
  levels: [string, number, "deny" | "continue"][];
  dropped: string[];
} {
  const lines = text === "" ? [] : text.split("\n");
  const dropped = lines.filter((l) => l.endsWith("\t-")).map((l) => l.slice(0, -2));
  return { levels: parseStockChunk(lines.filter((l) => !l.endsWith("\t-")).join("\n")), dropped };
}

/** A stock chunk's lines (`<id>\t<quantity>\t<policy>`) as `[id, quantity, policy]`. */
export function parseStockChunk(text: string): [string, number, "deny" | "continue"][] {
  if (text === "") return [];
  return text.split("\n").map((line) => {
    const [id = "", quantity = "0", policy] = line.split("\t");
    return [id, Number(quantity), policy === "continue" ? "continue" : "deny"];
  });
}

/** FNV-1a, 32 bits: stable across runtimes (Node at publish, workerd at read). */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}

export function shardOf(key: string, shards: number): number {
  return fnv1a(key) % shards;
}

export function shardCount(records: number, perShard: number): number {
  return Math.max(1, Math.ceil(records / perShard));
}

/** The chunk holding every position of a page that starts at `start` (page size <= MAX_PAGE). */
export function chunkFor(start: number): number {
  return Math.floor(start / CHUNK_STEP);
}

/** How many chunks a list of `count` items has (at least one, so an empty list reads as empty). */
export function chunkCount(count: number): number {
  return Math.max(1, Math.ceil(count / CHUNK_STEP));
}

/**
 * A variant inside its product's record. The last three are written only when some are set
 * (trailing nulls dropped), and versions published before they existed have none.
 */
export type StoredProductVariant = [
  id: string,
  values: string[],
  price_minor: number,
  available: boolean,
  sku?: string | null,
  /** Only when above the price; dropped at publish otherwise. */
  compare_at_minor?: number | null,
  image?: string | null,
  /** Tracked variants only: the file's quantity (live levels are in the Stock objects). */
  inventory_quantity?: number | null,
  /** Tracked variants that keep selling at 0. */
  inventory_policy?: "continue" | null,
  /** `false` for a variant that is not shipped (contract 10.4); absent: it is. */
  requires_shipping?: false | null,
];

/**
 * A product as stored in its shard: everything the detail and the variants endpoints render,
 * with variants in compact form (StoredProductVariant). Descriptions, images and SEO live in
 * the content shards instead, so a plain detail never reads or parses them.
 */
export interface ProductRecord {
  pos: number;
  id: string;
  handle: string;
  title: string;
  vendor: string;
  product_type: string;
  tags: string[];
  available: boolean;
  /** `name` is the API name (optionApiName), `label` the source spelling. */
  options: { name: string; label: string; values: string[] }[];
  variants: StoredProductVariant[];
  /** Collection handle to this product's position in that collection. */
  in: Record<string, number>;
  /** The catalog's ISO 4217 currency; absent for USD, so USD records stay as they were. */
  currency?: string;
}

/** A variant as stored in its shard (compact; store.ts expands it into a VariantRecord). */
export interface StoredVariant {
  h: string;
  t: string;
  vt: string;
  o: Record<string, string>;
  p: number;
  a: boolean;
  /** The catalog's currency when it is not USD. */
  c?: string;
  /** Tracked: the file's quantity (live levels are in the Stock objects). */
  q?: number;
  /** Tracked with policy `continue`. */
  pc?: 1;
  /** 0: not shipped (contract 10.4). Absent: shipped. */
  rs?: 0;
  /** Shipping weight in grams, when the catalog gives one. */
  w?: number;
  /** The product's collection handles (discounts that target collections). Absent: none. */
  cl?: string[];
  /** SKU, when the variant has one. */
  s?: string;
  /** Compare-at price in minor units, only when above the price. */
  ca?: number;
  /** The line's picture: the variant's own image, else the product's featured image. Absent: none. */
  im?: ImageRecord;
}

/** An image as the API answers it; `alt`, `width` and `height` are null when unknown. */
export interface ImageRecord {
  url: string;
  alt: string | null;
  width: number | null;
  height: number | null;
}

/**
 * A content shard is text, one line per product that has content:
 * `<handle>\t<description fields>\t<images field>\t<seo field>`, each field a ready JSON member
 * (`"images":[...]`) to splice into the detail. Tabs and newlines never occur raw in JSON text
 * and never in a handle, so a product's line is found by a string search: the rest of the shard
 * is neither split nor parsed.
 */
export const CONTENT_FIELDS = ["description", "images", "seo"] as const;
export type ContentField = (typeof CONTENT_FIELDS)[number];

/** First line of every collection products chunk; the item lines follow it. */
export interface CollectionHeader {
  handle: string;
  title: string;
  count: number;
  /** Position of the collection in the collections list. */
  pos: number;
}

export const DEFAULT_TITLE = "Default Title";

/** `<size> / <color>` for products with options, `Default Title` otherwise. */
export function variantTitle(values: readonly string[]): string {
  return values.length === 0 ? DEFAULT_TITLE : values.join(" / ");
}

/** `{"size": "M", "color": "Black"}`, or `{"title": "Default Title"}` for single-variant products. */
export function variantOptions(names: readonly string[], values: readonly string[]): Record<string, string> {
  if (names.length === 0) return { title: DEFAULT_TITLE };
  return Object.fromEntries(names.map((name, i) => [name, values[i] ?? ""]));
}
