import { type HistoryEntry, keys, parseStockChunk, type VersionMeta } from "../catalog/layout.ts";
import { type FileLevel, type LiveTracking, planLevels, type StockMode } from "../stock/publish-levels.ts";
import { type ProductList, pause, productAt } from "./catalog-input.ts";

/** What a publish will do to live stock, by the rule every Stock shard applies (publish-levels.ts). */
export interface StockPlanReport {
  written: number;
  kept: number;
  untracked: number;
}

/**
 * The most stock chunks (5,000 levels each) of the last publish a report reads: one KV read each,
 * through wrangler for `--remote`. A larger catalog's report says where to read the counts instead.
 */
export const MAX_REPORTED_CHUNKS = 40;

/**
 * The version whose levels the Stock shards last wrote, as far as the publisher can tell: the
 * newest completed publish in the history (a rollback writes no level), else the live version.
 */
export function lastPublished(history: readonly HistoryEntry[], live: VersionMeta | null): VersionMeta | null {
  for (let i = history.length - 1; i >= 0; i--) {
    const entry = history[i]!;
    if (entry.action === "publish" && entry.state === undefined) return entry.meta;
  }
  return live;
}

/**
 * How many levels a new version will write, keep and stop tracking, predicted with the shards'
 * own rule (`planLevels`) against the last publish's file: what the shards do once that publish
 * was written (the operator's own tracking aside, which only the shards know). Null when the last
 * publish's levels cannot be read (deleted, or more than MAX_REPORTED_CHUNKS chunks).
 */
export async function planPublishLevels(
  readText: (key: string) => Promise<string | null>,
  products: ProductList,
  base: VersionMeta | null,
  mode: StockMode,
): Promise<StockPlanReport | null> {
  const chunks = base?.stock_chunks ?? 0;
  if (chunks > MAX_REPORTED_CHUNKS) return null;
  const live = new Map<string, LiveTracking>();
  for (let chunk = 0; chunk < chunks; chunk++) {
    const text = await readText(keys.stockChunk(base!.version, chunk));
    if (text === null) return null;
    for (const [id, quantity] of parseStockChunk(text)) live.set(id, { published: quantity, operator: false });
  }
  const file = new Map<string, FileLevel>();
  for (let pos = 0; pos < products.length; pos++) {
    await pause(pos);
    for (const variant of productAt(products, pos).variants) {
      if (variant.inventory_quantity === undefined) continue;
      file.set(variant.id, { quantity: variant.inventory_quantity, policy: variant.inventory_policy ?? "deny" });
    }
  }
  const { written, kept, untracked } = planLevels(file, live, mode);
  return { written, kept, untracked };
}
