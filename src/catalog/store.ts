import { type Currency, DEFAULT_CURRENCY } from "../money.ts";
import { catalogUnavailable } from "./errors.ts";
import { variantDigits, variantGid } from "./ids.ts";
import { BoundedMemo } from "../memo.ts";
import { type ColsTable, decodeOwners, derivedKeys, MAP_BLOCK, type MapBlock, type MapKind } from "./derived.ts";
import {
  type CollectionHeader,
  keys,
  parseStockChunk,
  parseStockDelta,
  type Pointer,
  POINTER_KEY,
  type ProductRecord,
  shardOf,
  EMPTY_OVERLAY,
  type ImageRecord,
  STOCK_OVERLAY_KEY,
  type StockOverlay,
  type StoredProductVariant,
  type StoredVariant,
  type VersionMeta,
} from "./layout.ts";

/** A variant as the cart needs it: enough to price, label and check a line without the product. */
export interface VariantRecord {
  id: string;
  gid: string;
  product_handle: string;
  product_title: string;
  title: string;
  options: Record<string, string>;
  price_minor: number;
  /** The catalog's ISO 4217 code. */
  currency: Currency;
  /** False if the variant or its product is sold out (by the file; live stock may say otherwise). */
  available: boolean;
  /** The variant's stock is tracked: its live level is in the Stock objects (src/stock). */
  tracked: boolean;
  /** Tracked: `continue` keeps selling at 0. */
  inventory_policy: "deny" | "continue";
  /** Whether the variant is shipped (contract 10.4). */
  requires_shipping: boolean;
  /** Shipping weight in grams; null when the catalog gives none. */
  weight_grams: number | null;
  /** The product's collection handles, in no particular order. */
  collections: readonly string[];
  sku: string | null;
  /** Only above the price, else null. */
  compare_at_minor: number | null;
  /** The variant's own image, else its product's featured image; null when neither exists. */
  image: ImageRecord | null;
}

/**
 * Parsed shards and chunks this isolate has read. Their keys hold the catalog version and a
 * version is never rewritten, so a kept value is the value in KV for as long as it exists.
 * Callers must treat what they get as read-only.
 */
const versionedValues = new BoundedMemo<unknown>(16 * 1024 * 1024);

/** A page of list lines read from one chunk, still as JSON text (spliced, never parsed). */
export interface ChunkLines {
  lines: string[];
}

/** The contract's default bound on how long an isolate keeps the pointer (CATALOG_POINTER_TTL_MS). */
export const DEFAULT_POINTER_TTL_MS = 1000;

/** CATALOG_POINTER_TTL_MS as set (milliseconds, 0 to 60,000), else the default. */
export function pointerTtlMs(setting: unknown): number {
  const ms = typeof setting === "string" && setting.trim() !== "" ? Number(setting) : Number.NaN;
  return Number.isInteger(ms) && ms >= 0 && ms <= 60_000 ? ms : DEFAULT_POINTER_TTL_MS;
}

/**
 * How long an isolate keeps the stock overlay: the pointer's TTL, but at least 1 s (so a hot
 * isolate reads it once a second, not on every request, even where the pointer is read every
 * time) and at most 5 s (so a change shows within 10 s where it was made, whatever the pointer's
 * TTL; elsewhere Workers KV's own propagation adds up to about 60 s).
 */
export function overlayTtlMs(pointerTtl: number): number {
  return Math.min(Math.max(pointerTtl, 1000), 5000);
}

/** The stock overlay this isolate read last, per namespace, and when. */
const keptOverlays = new WeakMap<KVNamespace, { overlay: StockOverlay; readAt: number }>();

/** A product record with live stock's overlay applied (a copy; the kept record is never changed). */
export function overlaid(record: ProductRecord, overlay: StockOverlay): ProductRecord {
  const product = overlay.p[record.handle];
  let changed = product !== undefined && (product === 1) !== record.available;
  const variants = record.variants.map((v): StoredProductVariant => {
    const live = overlay.v[v[0]];
    if (!live) return v;
    changed = true;
    const copy = [...v] as StoredProductVariant;
    copy[3] = live[0] === 1;
    while (copy.length < 8) copy.push(null);
    copy[7] = live[1];
    return copy;
  });
  if (!changed) return record;
  return { ...record, available: product === undefined ? record.available : product === 1, variants };
}

/** A list or collection item line with the overlay's availability (and `endpoint_status`). */
function overlaidLine(line: string, overlay: StockOverlay): string {
  const start = line.indexOf('"handle":"');
  if (start < 0) return line;
  const end = line.indexOf('"', start + 10);
  const live = overlay.p[line.slice(start + 10, end)];
  if (live === undefined) return line;
  const item = JSON.parse(line) as { available: boolean; endpoint_status?: number };
  item.available = live === 1;
  if (item.endpoint_status !== undefined) item.endpoint_status = live === 1 ? 200 : 404;
  return JSON.stringify(item);
}

/** Item lines with the overlay applied (the same array when it changes none). */
export function overlaidLines(lines: string[], overlay: StockOverlay): string[] {
  if (overlay.gen === 0 || Object.keys(overlay.p).length === 0) return lines;
  return lines.map((line) => overlaidLine(line, overlay));
}

/**
 * A list or collection answer (a browse page, rendered by an engine) with the overlay's
 * availability on its items: the text as it was when the overlay names none of them.
 */
export function overlaidBody(text: string, overlay: StockOverlay): string {
  const handles = Object.keys(overlay.p);
  if (handles.length === 0 || !handles.some((h) => text.includes(`"handle":${JSON.stringify(h)}`))) return text;
  type Item = { handle?: string; available?: boolean; endpoint_status?: number };
  const body = JSON.parse(text) as { data?: Item[]; products?: { data?: Item[] } };
  for (const item of [...(body.data ?? []), ...(body.products?.data ?? [])]) {
    const live = item.handle === undefined ? undefined : overlay.p[item.handle];
    if (live === undefined) continue;
    item.available = live === 1;
    if (item.endpoint_status !== undefined) item.endpoint_status = live === 1 ? 200 : 404;
  }
  return JSON.stringify(body);
}

/** The pointer this isolate read last, per namespace, and when; only kept when a TTL is set. */
const keptPointers = new WeakMap<KVNamespace, { pointer: Pointer; readAt: number }>();

/**
 * The catalog's KV adapter: the only code that reads the CATALOG namespace. Each method is one
 * KV read (getVariants: one per distinct shard), which is what keeps every catalog request at
 * three reads or fewer. A shard or chunk that is absent although its version's meta says it
 * exists means the version was deleted under the reader (a stale pointer after two publishes):
 * that is answered as 503 catalog_unavailable, never as a missing product.
 */
export class CatalogStore {
  readonly #kv: KVNamespace;
  readonly #pointerTtlMs: number;
  readonly #metas = new Map<string, VersionMeta>();
  /** Live stock's overlay for this request (see `useStockOverlay`); none until set. */
  #overlay: StockOverlay = EMPTY_OVERLAY;

  /** `pointerTtlMs`: how long this isolate may answer from a pointer it read (0: read it every time). */
  constructor(kv: KVNamespace, options: { pointerTtlMs?: number } = {}) {
    this.#kv = kv;
    this.#pointerTtlMs = options.pointerTtlMs ?? 0;
  }

  /**
   * The live version's meta, or null when nothing was ever published. One read, or none while
   * this isolate's copy of the pointer is younger than the TTL. The version is fixed for the
   * whole request, so a reader never mixes versions; a publish shows within the TTL here (plus
   * KV's own propagation in production). `reread` skips this isolate's copy (one read).
   */
  async currentMeta(options: { reread?: boolean } = {}): Promise<VersionMeta | null> {
    const kept = keptPointers.get(this.#kv);
    const fresh = !options.reread && kept !== undefined && Date.now() - kept.readAt < this.#pointerTtlMs;
    const pointer = fresh ? kept.pointer : await this.#kv.get<Pointer>(POINTER_KEY, "json");
    if (!pointer) return null;
    if (!fresh && this.#pointerTtlMs > 0) keptPointers.set(this.#kv, { pointer, readAt: Date.now() });
    this.#metas.set(pointer.current.version, pointer.current);
    if (pointer.previous) this.#metas.set(pointer.previous.version, pointer.previous);
    return pointer.current;
  }

  /**
   * Live stock's overlay (STOCK_OVERLAY_KEY): one read, or none while this isolate's copy is
   * younger than the pointer's TTL, so a stock change shows within the same bound as a publish.
   */
  async stockOverlay(): Promise<StockOverlay> {
    const ttl = overlayTtlMs(this.#pointerTtlMs);
    const kept = keptOverlays.get(this.#kv);
    if (kept !== undefined && Date.now() - kept.readAt < ttl) return kept.overlay;
    const overlay = (await this.#kv.get<StockOverlay>(STOCK_OVERLAY_KEY, "json")) ?? EMPTY_OVERLAY;
    keptOverlays.set(this.#kv, { overlay, readAt: Date.now() });
    return overlay;
  }

  /** Applies `overlay` to every product and item this store returns from now on (one request). */
  useStockOverlay(overlay: StockOverlay): void {
    this.#overlay = overlay;
  }

  /** The overlay in use. */
  get overlay(): StockOverlay {
    return this.#overlay;
  }

  /** The live catalog version, or null when nothing was ever published. One read. */
  async currentVersion(): Promise<string | null> {
    return (await this.currentMeta())?.version ?? null;
  }

  async #meta(version: string): Promise<VersionMeta> {
    const known = this.#metas.get(version);
    if (known) return known;
    const meta = await this.#kv.get<VersionMeta>(keys.meta(version), "json");
    if (!meta) throw catalogUnavailable();
    this.#metas.set(version, meta);
    return meta;
  }

  async #required<T>(key: string, type: "json" | "text"): Promise<T> {
    const kept = versionedValues.get(key);
    if (kept !== undefined) return kept as T;
    const text = await this.#kv.get(key, "text");
    if (text === null) throw catalogUnavailable();
    const value = (type === "json" ? JSON.parse(text) : text) as T;
    versionedValues.set(key, value, text.length * 2);
    return value;
  }

  /** A value decoded from a versioned entry, kept like the entry (decoding a map block once per isolate). */
  async #decoded<T>(key: string, decode: (text: string) => T): Promise<T> {
    const name = `${key}#decoded`;
    const kept = versionedValues.get(name);
    if (kept !== undefined) return kept as T;
    const text = await this.#required<string>(key, "text");
    const value = decode(text);
    versionedValues.set(name, value, text.length * 2);
    return value;
  }

  /** A change batch's map block (derived.ts): each entry's owner; null: all the root's. */
  async #mapBlock(meta: VersionMeta, kind: MapKind, block: number): Promise<Uint8Array | null> {
    const derived = meta.derived as NonNullable<VersionMeta["derived"]>;
    const at = derived.maps[kind][block] ?? -1;
    if (at < 0) return null;
    return this.#decoded(derivedKeys.map(derived.lineage[at] as string, kind, block), (text) =>
      decodeOwners((JSON.parse(text) as MapBlock).o),
    );
  }

  /** The version holding entry `entry` of `kind` for `meta`: its own, or for a change batch's the owner its map names. */
  async #owner(meta: VersionMeta, kind: MapKind, entry: number): Promise<string> {
    const derived = meta.derived;
    if (!derived) return meta.version;
    const block = await this.#mapBlock(meta, kind, Math.floor(entry / MAP_BLOCK));
    return derived.lineage[block ? (block[entry % MAP_BLOCK] as number) : 0] as string;
  }

  /** A change batch's collections (derived.ts ColsTable), or null when they are the root's as published. */
  async cols(meta: VersionMeta): Promise<ColsTable | null> {
    const derived = meta.derived;
    if (!derived || derived.cols < 0) return null;
    return this.#required<ColsTable>(derivedKeys.cols(derived.lineage[derived.cols] as string), "json");
  }

  /** A change batch's collection's header (title, count, place in the list) from its collections table; null when it has none or no such collection. */
  async collectionHeader(meta: VersionMeta, handle: string): Promise<CollectionHeader | null> {
    const cols = await this.cols(meta);
    const at = cols ? cols.list.findIndex(([h]) => h === handle) : -1;
    const entry = cols?.list[at];
    return entry ? { handle, title: entry[1], count: entry[2], pos: at } : null;
  }

  /** A product by handle (one shard read), or null for an unknown handle. */
  async getProduct(meta: VersionMeta, handle: string): Promise<ProductRecord | null> {
    const index = shardOf(handle, meta.product_shards);
    const shard = await this.#required<Record<string, ProductRecord>>(
      keys.productShard(await this.#owner(meta, "ps", index), index),
      "json",
    );
    const record = Object.hasOwn(shard, handle) ? (shard[handle] ?? null) : null;
    return record && this.#overlay.gen > 0 ? overlaid(record, this.#overlay) : record;
  }

  /**
   * A product's content line (`<handle>\t<description>\t<images>\t<seo>`, see layout.ts), or
   * null when it has no content. One read of the product's content shard, found by a string
   * search: the other products' content is neither split nor parsed.
   */
  async contentLine(meta: VersionMeta, handle: string): Promise<string | null> {
    if (meta.content_shards === undefined) return null;
    const index = shardOf(handle, meta.content_shards);
    const text = await this.#required<string>(keys.contentShard(await this.#owner(meta, "cs", index), index), "text");
    const first = text.startsWith(`${handle}\t`);
    const found = first ? 0 : text.indexOf(`\n${handle}\t`);
    if (found < 0) return null;
    const start = first ? 0 : found + 1;
    const end = text.indexOf("\n", start);
    return text.slice(start, end < 0 ? undefined : end);
  }

  /**
   * One chunk of a published version's product list, as JSON lines; `withImage` reads the series
   * whose items carry `image`.
   */
  async productChunk(meta: VersionMeta, chunk: number, withImage = false): Promise<string[]> {
    if (withImage && meta.content_shards === undefined) return addNoImage(await this.productChunk(meta, chunk));
    const v = meta.version;
    const key = withImage ? keys.productImageChunk(v, chunk) : keys.productChunk(v, chunk);
    return overlaidLines(splitLines(await this.#required<string>(key, "text")), this.#overlay);
  }

  /** One chunk of the collection list, as JSON lines (a change batch's from the version holding its collections). */
  async collectionChunk(meta: VersionMeta, chunk: number): Promise<string[]> {
    const derived = meta.derived;
    const owner = !derived ? meta.version : (derived.lineage[Math.max(0, derived.cols)] as string);
    return splitLines(await this.#required<string>(keys.collectionChunk(owner, chunk), "text"));
  }

  /**
   * One chunk of a published version's collection's products with its header, or null for an
   * unknown collection (a change batch's version reads its root's: only for a header its batches
   * left as published, see collectionHeaderOf).
   */
  async collectionProductsChunk(
    meta: VersionMeta,
    handle: string,
    chunk: number,
    withImage = false,
  ): Promise<{ header: CollectionHeader; lines: string[] } | null> {
    const old = withImage && meta.content_shards === undefined;
    const v = meta.derived?.lineage[0] ?? meta.version;
    const key =
      withImage && !old
        ? keys.collectionProductsImageChunk(v, handle, chunk)
        : keys.collectionProductsChunk(v, handle, chunk);
    const text = await this.#kv.get(key, "text");
    if (text === null) return null;
    const [head = "", ...lines] = text.split("\n");
    return {
      header: JSON.parse(head) as CollectionHeader,
      lines: overlaidLines(old ? addNoImage(lines) : lines, this.#overlay),
    };
  }

  /**
   * One chunk of a version's tracked levels (`[id, quantity, policy]` each), read straight from
   * KV (not kept: the Stock objects read each once per version).
   */
  async stockChunk(meta: VersionMeta, chunk: number): Promise<[string, number, "deny" | "continue"][]> {
    return (await this.stockDelta(meta, chunk)).levels;
  }

  /** A stock chunk with the variants it stops tracking (a change batch's: VersionMeta.stock_delta; none for a publish's). */
  async stockDelta(
    meta: VersionMeta,
    chunk: number,
  ): Promise<{ levels: [string, number, "deny" | "continue"][]; dropped: string[] }> {
    const text = await this.#kv.get(keys.stockChunk(meta.version, chunk), "text");
    if (text === null) throw catalogUnavailable();
    return meta.stock_delta ? parseStockDelta(text) : { levels: parseStockChunk(text), dropped: [] };
  }

  /** A version's meta (the live one's, the previous one's, or read from KV); null once deleted. */
  async versionMeta(version: string): Promise<VersionMeta | null> {
    try {
      return await this.#meta(version);
    } catch {
      return null;
    }
  }

  /** A variant by id (digits or gid), or null for an unknown one. One read, plus the meta when the version is unknown here. */
  async getVariant(version: string, id: string): Promise<VariantRecord | null> {
    return (await this.getVariants(version, [id])).get(variantDigits(id)) ?? null;
  }

  /** Variants by id, keyed by digits id; unknown ids are absent. One read per distinct shard. */
  async getVariants(version: string, ids: readonly string[]): Promise<Map<string, VariantRecord>> {
    const meta = await this.#meta(version);
    const byShard = new Map<number, string[]>();
    for (const raw of ids) {
      const id = variantDigits(raw);
      if (!/^\d{1,20}$/.test(id)) continue;
      const shard = shardOf(id, meta.variant_shards);
      byShard.set(shard, [...(byShard.get(shard) ?? []), id]);
    }
    const found = new Map<string, VariantRecord>();
    await Promise.all(
      [...byShard].map(async ([shard, wanted]) => {
        const stored = await this.#required<Record<string, StoredVariant>>(
          keys.variantShard(await this.#owner(meta, "vs", shard), shard),
          "json",
        );
        for (const id of wanted) {
          const v = Object.hasOwn(stored, id) ? stored[id] : undefined;
          if (v) found.set(id, expandVariant(id, v));
        }
      }),
    );
    return found;
  }
}

function splitLines(text: string): string[] {
  return text === "" ? [] : text.split("\n");
}

/** Items of a version published before images existed, as `include=image` answers them. */
function addNoImage(lines: readonly string[]): string[] {
  return lines.map((line) => `${line.slice(0, -1)},"image":null}`);
}

function expandVariant(id: string, v: StoredVariant): VariantRecord {
  return {
    id,
    gid: variantGid(id),
    product_handle: v.h,
    product_title: v.t,
    title: v.vt,
    options: v.o,
    price_minor: v.p,
    currency: v.c ?? DEFAULT_CURRENCY,
    available: v.a,
    tracked: v.q !== undefined,
    inventory_policy: v.pc === 1 ? "continue" : "deny",
    requires_shipping: v.rs !== 0,
    weight_grams: v.w ?? null,
    collections: v.cl ?? [],
    sku: v.s ?? null,
    compare_at_minor: v.ca ?? null,
    image: v.im ?? null,
  };
}
