import type { StockOverlay } from "../catalog/layout.ts";
import type { CatalogStore } from "../catalog/store.ts";
import { sha256Hex } from "../sha256.ts";

/**
 * The stock overlay the catalog reads (STOCK_OVERLAY_KEY), merged from every shard's entries by
 * the coordinator (`Stock.putFragment`): what of live stock differs from the live version's file,
 * and the digests its answers' cache keys carry (`stockKeyPart` in catalog/layout.ts).
 */

/**
 * One shard's overlay entry: variant, in stock now, units left, and both as the last publish wrote
 * them; both bases are -1 for a variant only the operator tracks (no version gave it a level: the
 * catalog's own `available` is its base, read from the live version here).
 */
export type OverlayEntry = [
  variantId: string,
  inStock: number,
  available: number,
  baseInStock: number,
  baseAvailable: number,
];

/** The merged overlay before it gets its generation: `digest` says whether it differs from the last one written. */
export interface MergedOverlay {
  p: StockOverlay["p"];
  v: StockOverlay["v"];
  t: string[];
  /** Each product's variant entries (its answers' cache keys carry a digest of them). */
  byProduct: Map<string, string[]>;
  /** `p` and `v` as text: what the answers depend on. */
  answers: string;
  /** Everything written (`t` too): equal digests, nothing to write. */
  digest: string;
}

/** A record's entries in key order: the same content, the same digest. */
function sortedEntries<T>(record: Record<string, T>): [string, T][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** 64 bits of SHA-256: a cache key part that stands for `value` (see `stockKeyPart`). */
function keyDigest(value: unknown): Promise<string> {
  return sha256Hex(typeof value === "string" ? value : JSON.stringify(value), 8);
}

/**
 * Merges every shard's entries against the live version: variants whose availability (with
 * `stock_display: quantity`, whose count) differs from the file, the products whose availability
 * that changes (from the live version's records), and the variants only the operator tracks.
 */
export async function mergeOverlay(
  catalog: CatalogStore,
  fragments: readonly OverlayEntry[][],
): Promise<MergedOverlay> {
  const meta = await catalog.currentMeta();
  const quantities = meta?.stock_display === "quantity";
  const v: StockOverlay["v"] = {};
  const flipped: string[] = [];
  /** Tracked by the operator alone: [id, in stock, units left], judged against the catalog below. */
  const operatorOnly: [string, number, number][] = [];
  for (const entries of fragments) {
    for (const [id, inStock, available, baseInStock, baseAvailable] of entries) {
      if (baseInStock === -1) {
        operatorOnly.push([id, inStock, available]);
        continue;
      }
      if (inStock !== baseInStock) flipped.push(id);
      if (inStock !== baseInStock || (quantities && available !== baseAvailable))
        v[id] = [inStock === 1 ? 1 : 0, available];
    }
  }
  const t = operatorOnly.map(([id]) => id).sort();
  const p: StockOverlay["p"] = {};
  const byProduct = new Map<string, string[]>();
  if (meta && Object.keys(v).length + t.length > 0) {
    const variants = await catalog.getVariants(meta.version, [...Object.keys(v), ...t]);
    // A variant only the operator tracks differs from the file where the catalog's own flag says
    // otherwise (with `stock_display: quantity` always: the file shows no count for it).
    for (const [id, inStock, available] of operatorOnly) {
      const record = variants.get(id);
      if (!record) continue;
      const differs = inStock !== (record.available ? 1 : 0);
      if (differs) flipped.push(id);
      if (differs || quantities) v[id] = [inStock === 1 ? 1 : 0, available];
    }
    for (const [id, record] of variants) {
      if (!v[id]) continue;
      const ids = byProduct.get(record.product_handle);
      if (ids) ids.push(id);
      else byProduct.set(record.product_handle, [id]);
    }
    const handles = [...new Set(flipped.flatMap((id) => variants.get(id)?.product_handle ?? []))];
    const records = await Promise.all(handles.map((h) => catalog.getProduct(meta, h)));
    for (const record of records) {
      if (!record) continue;
      const live = record.variants.some(([id, , , available]) => (v[id] ? v[id][0] === 1 : available));
      if (live !== record.available) p[record.handle] = live ? 1 : 0;
    }
  }
  const answers = JSON.stringify([sortedEntries(p), sortedEntries(v)]);
  return { p, v, t, byProduct, answers, digest: t.length === 0 ? answers : JSON.stringify([answers, t]) };
}

/** The overlay as written, generation `gen`, with the digests of what each kind of answer shows. */
export async function overlayOf(merged: MergedOverlay, gen: number): Promise<StockOverlay> {
  const { p, v, t } = merged;
  const h: Record<string, string> = {};
  for (const [handle, ids] of merged.byProduct)
    h[handle] = await keyDigest([p[handle] ?? null, ids.sort().map((id) => [id, v[id]])]);
  for (const handle of Object.keys(p)) h[handle] ??= await keyDigest([p[handle], []]);
  const d = Object.keys(v).length + Object.keys(p).length === 0 ? "" : await keyDigest(merged.answers);
  const pd = Object.keys(p).length === 0 ? "" : await keyDigest(sortedEntries(p));
  return { gen, p, v, d, pd, h, ...(t.length > 0 ? { t } : {}) };
}
