import { type HoldLine, type InventoryPolicy, MAX_STOCK_LEVEL, type StockLevel } from "./api.ts";

/** A Stock shard's `levels` row, and what it means to a shopper. */

export interface LevelRow extends Record<string, SqlStorageValue> {
  variant_id: string;
  quantity: number;
  held: number;
  policy: InventoryPolicy;
  published: number | null;
  /** 1: the operator started tracking it (no catalog version stops it). */
  operator: number;
}

/**
 * What a shopper may take and whether the variant sells, from a row (or its absence); `own` units
 * of the held ones are the reader's own (its open checkout's), so they are the reader's to take.
 */
export function levelOf(variantId: string, row: LevelRow | undefined, own = 0): StockLevel {
  if (!row) {
    return {
      variant_id: variantId,
      tracked: false,
      tracked_by: null,
      quantity: 0,
      held: 0,
      available_quantity: 0,
      own_held: 0,
      policy: "deny",
      in_stock: true,
    };
  }
  const ownHeld = Math.min(own, row.held);
  const available = Math.max(0, row.quantity - row.held + ownHeld);
  return {
    variant_id: variantId,
    tracked: true,
    tracked_by: row.operator === 1 ? "operator" : "catalog",
    quantity: row.quantity,
    held: row.held,
    available_quantity: available,
    own_held: ownHeld,
    policy: row.policy,
    in_stock: row.policy === "continue" || available > 0,
  };
}

/** Sums quantities per variant, in first-seen order. */
export function merged(lines: readonly HoldLine[]): HoldLine[] {
  const total = new Map<string, number>();
  for (const line of lines) total.set(line.variant_id, (total.get(line.variant_id) ?? 0) + line.quantity);
  return [...total].map(([variant_id, quantity]) => ({ variant_id, quantity }));
}

export function validLines(lines: readonly HoldLine[]): boolean {
  return lines.every((l) => Number.isSafeInteger(l.quantity) && l.quantity > 0 && l.quantity <= MAX_STOCK_LEVEL);
}
