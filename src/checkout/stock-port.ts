/**
 * What a checkout needs from live stock: hold a cart's units under the checkout's id (all lines
 * or none), give them back, and turn them into decrements once paid. Every call is idempotent by
 * the hold id, so a cart object that crashed mid-way simply calls again.
 */
export interface HoldLine {
  variant_id: string;
  quantity: number;
}

export interface HoldRefusal {
  variant_id: string;
  /** `hold_limit`: more than a holder may hold of one variant (`max_quantity`). */
  code: "sold_out" | "insufficient_stock" | "hold_limit";
  available_quantity: number;
  max_quantity?: number;
}

/** `held`: the variants whose units the hold took from other shoppers (tracked, policy `deny`). */
export type HoldOutcome = { ok: true; held: string[] } | { ok: false; refusals: HoldRefusal[] };

/** Whose hold it is and what it may take (the stock room's HoldOptions). */
export interface HoldRequest {
  /** The holder's cart object id: its cart reads its own held units as its own. */
  owner: string;
  /** The holder's open checkouts: their units count for this hold, and stay held until it succeeded. */
  replaces: readonly string[];
  /** The most units of one tracked variant the holder may hold. */
  maxUnits: number;
}

export interface StockHolds {
  /** Brings the shards of `variantIds` to the live version's levels (a version's first stock call writes them). */
  sync(version: string, variantIds: readonly string[]): Promise<void>;
  /** Which of `variantIds` live stock tracks: for those the level decides, not the catalog's flag. */
  tracked(variantIds: readonly string[]): Promise<Set<string>>;
  hold(holdId: string, lines: readonly HoldLine[], expiresAt: number, request: HoldRequest): Promise<HoldOutcome>;
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
