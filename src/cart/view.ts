import { type Currency, DEFAULT_CURRENCY, fromMinor } from "../money.ts";
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
  /** 1: the variant's stock is tracked (live levels in the Stock objects). */
  tracked: number;
  /** 1: the line's quantity was covered by live stock when last read (always 1 when untracked). */
  in_stock: number;
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
    in_stock: row.available === 1 && row.in_stock === 1,
  };
}

/**
 * The contract's Cart from stored rows. All sums are integer minor units; `subtotal` counts
 * only available lines, `total_quantity` counts every line the cart holds.
 */
export function buildCart(
  id: string,
  times: CartTimes,
  rows: readonly LineRow[],
  currency: Currency = DEFAULT_CURRENCY,
): Cart {
  return cartOf(id, times, rows, rows.map(toLine), currency);
}

/**
 * The subtotal's currency: the catalog's, which every available line was priced in (lines are
 * re-priced from the live version before a cart is shown); `catalog` when no line is available.
 */
function subtotalCurrency(rows: readonly LineRow[], catalog: Currency): Currency {
  return rows.find((row) => row.available === 1)?.currency ?? catalog;
}

function cartOf<L>(
  id: string,
  times: CartTimes,
  rows: readonly LineRow[],
  lines: L[],
  currency: Currency,
): Omit<Cart, "lines"> & { lines: L[] } {
  let subtotal = 0;
  let totalQuantity = 0;
  for (const row of rows) {
    totalQuantity += row.quantity;
    if (row.available === 1) subtotal += row.unit_price_minor * row.quantity;
  }
  return {
    object: "cart",
    id,
    lines,
    total_quantity: totalQuantity,
    subtotal: fromMinor(subtotal, subtotalCurrency(rows, currency)),
    created_at: new Date(times.created_at).toISOString(),
    updated_at: new Date(times.updated_at).toISOString(),
    expires_at: new Date(times.expires_at).toISOString(),
  };
}

/**
 * Each row's rendered line. The cart's rows are never changed in place (CartRows replaces a
 * row it changes), so a row object renders to the same text for as long as it lives.
 */
const renderedLines = new WeakMap<LineRow, string>();

/**
 * `JSON.stringify(buildCart(id, times, rows))`, byte for byte, rendering only the lines not
 * rendered before: a write changes one line, and re-rendering every line of a large cart after
 * each write cost more than the write. JSON.stringify of an object is the concatenation of its
 * members' texts, so the lines' texts are spliced into the shell's empty `"lines":[]`, which is
 * its first member after `id` (a `cart_<hex>` string).
 */
export function cartJson(
  id: string,
  times: CartTimes,
  rows: readonly LineRow[],
  currency: Currency = DEFAULT_CURRENCY,
): string {
  const lines: string[] = [];
  for (const row of rows) {
    let text = renderedLines.get(row);
    if (text === undefined) {
      text = JSON.stringify(toLine(row));
      renderedLines.set(row, text);
    }
    lines.push(text);
  }
  const shell = JSON.stringify(cartOf(id, times, rows, [], currency));
  const at = shell.indexOf('"lines":[]') + '"lines":['.length;
  return `${shell.slice(0, at)}${lines.join(",")}${shell.slice(at)}`;
}
