import { fromMinor, type Currency } from "../money.ts";
import type { Cart, CartLine } from "./api.ts";

/** A row of `cart_lines` as SQLite returns it. */
export interface LineRow extends Record<string, SqlStorageValue> {
  id: string;
  variant_id: string;
  position: number;
  quantity: number;
  handle: string;
  title: string;
  variant_title: string;
  unit_price_minor: number;
  currency: string;
  available: number;
  catalog_version: string;
}

/** The `cart` row's timestamps (epoch milliseconds). */
export interface CartTimes {
  created_at: number;
  updated_at: number;
  expires_at: number;
}

function toLine(row: LineRow): CartLine {
  const currency = row.currency as Currency;
  return {
    object: "cart_line",
    id: row.id,
    variant_id: row.variant_id,
    handle: row.handle,
    title: row.title,
    variant_title: row.variant_title,
    quantity: row.quantity,
    unit_price: fromMinor(row.unit_price_minor, currency),
    line_total: fromMinor(row.unit_price_minor * row.quantity, currency),
    available: row.available === 1,
  };
}

/**
 * The contract's Cart from stored rows. All sums are integer minor units; `subtotal` counts
 * only available lines, `total_quantity` counts every line the cart holds.
 */
export function buildCart(id: string, times: CartTimes, rows: readonly LineRow[]): Cart {
  let subtotal = 0;
  let totalQuantity = 0;
  for (const row of rows) {
    totalQuantity += row.quantity;
    if (row.available === 1) subtotal += row.unit_price_minor * row.quantity;
  }
  return {
    object: "cart",
    id,
    lines: rows.map(toLine),
    total_quantity: totalQuantity,
    subtotal: fromMinor(subtotal, "USD"),
    created_at: new Date(times.created_at).toISOString(),
    updated_at: new Date(times.updated_at).toISOString(),
    expires_at: new Date(times.expires_at).toISOString(),
  };
}
