/**
 * What a checkout needs from live stock: hold a cart's units under the checkout's id (all lines
 * or none), give them back, and turn them into decrements once paid. Every call is idempotent by
 * the hold id, so a checkout object that crashed mid-way simply calls again.
 */
export interface HoldLine {
  variant_id: string;
  quantity: number;
}

export interface HoldRefusal {
  variant_id: string;
  code: "sold_out" | "insufficient_stock";
  available_quantity: number;
}

export type HoldOutcome = { ok: true } | { ok: false; refusals: HoldRefusal[] };

export interface StockHolds {
  hold(holdId: string, lines: readonly HoldLine[], expiresAt: number): Promise<HoldOutcome>;
  release(holdId: string, lines: readonly HoldLine[]): Promise<void>;
  /** Decrements the hold's units; answers the variant ids whose units stock no longer covered. */
  commit(holdId: string, lines: readonly HoldLine[]): Promise<Set<string>>;
}

/** Sums a checkout's lines per variant: a hold counts units of a variant, not lines. */
export function holdLines(lines: readonly { variant_id: string; quantity: number }[]): HoldLine[] {
  const total = new Map<string, number>();
  for (const line of lines) total.set(line.variant_id, (total.get(line.variant_id) ?? 0) + line.quantity);
  return [...total].map(([variant_id, quantity]) => ({ variant_id, quantity }));
}
