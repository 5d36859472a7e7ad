import type { StockOverlay, VersionMeta } from "../catalog/layout.ts";
import type { CatalogStore } from "../catalog/store.ts";

/**
 * Live stock as a version's browse engine needs it: for every product whose availability, or
 * one of whose variants' availability, live stock has changed since the version's file (the
 * stock overlay, STOCK_OVERLAY_KEY), whether it is available and the option values of its
 * in-stock variants. The Worker makes it from the overlay it already read (once per overlay
 * generation and version per isolate: a few KV reads, shards the isolate mostly holds already)
 * and sends it with each browse request; the engine applies it as a delta on its `available`
 * and option postings and on its facet counts, memoised per generation (VersionIndex), so the
 * `available` and `option.*` filters and the facet counts agree with the items shown.
 */
export interface LiveStock {
  /** The overlay's generation (the engine's memo key). */
  gen: number;
  /** Product handle -> [1 available / 0 sold out, [option API name, value] of its in-stock variants]. */
  products: Record<string, [0 | 1, [string, string][]]>;
}

/** Views made by this isolate, per overlay (as the store keeps it) and version. */
const made = new WeakMap<StockOverlay, Map<string, Promise<LiveStock | undefined>>>();

/**
 * The live stock view of `meta`'s version under the overlay `store` uses (useStockOverlay), or
 * undefined when the overlay changes nothing. Memoised per overlay object and version.
 */
export function liveStock(store: CatalogStore, meta: VersionMeta): Promise<LiveStock | undefined> {
  const overlay = store.overlay;
  if (overlay.gen === 0 || (Object.keys(overlay.p).length === 0 && Object.keys(overlay.v).length === 0))
    return Promise.resolve(undefined);
  let byVersion = made.get(overlay);
  if (!byVersion) {
    byVersion = new Map();
    made.set(overlay, byVersion);
  }
  let view = byVersion.get(meta.version);
  if (!view) {
    view = makeLiveStock(store, meta, overlay);
    byVersion.set(meta.version, view);
    const kept = byVersion;
    const version = meta.version;
    view.catch(() => kept.delete(version));
  }
  return view;
}

async function makeLiveStock(store: CatalogStore, meta: VersionMeta, overlay: StockOverlay): Promise<LiveStock> {
  const handles = new Set(Object.keys(overlay.p));
  const variants = await store.getVariants(meta.version, Object.keys(overlay.v));
  for (const v of variants.values()) handles.add(v.product_handle);
  const products: LiveStock["products"] = {};
  // getProduct answers the record with the overlay applied (the store's useStockOverlay).
  const records = await Promise.all([...handles].map((h) => store.getProduct(meta, h)));
  for (const record of records) {
    if (!record) continue;
    const options = new Map<string, [string, string]>();
    if (record.available)
      for (const [, values, , available] of record.variants) {
        if (!available) continue;
        record.options.forEach((option, i) => {
          const value = values[i];
          if (value !== undefined && value !== null) options.set(`${option.name}\u0000${value}`, [option.name, value]);
        });
      }
    products[record.handle] = [record.available ? 1 : 0, [...options.values()]];
  }
  return { gen: overlay.gen, products };
}
