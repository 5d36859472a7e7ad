import { type Currency, DEFAULT_CURRENCY, fromMinor } from "../money.ts";
import type { ImageRecord } from "../catalog/layout.ts";
import type { Buyer, RenderedCost } from "../pricing/index.ts";
import type { Cart, CartLine } from "./api.ts";

/** A cart's public id: from its Durable Object's id, so the worker can name a cart no object holds yet. */
export function cartIdOf(id: DurableObjectId): string {
  return `cart_${id.toString().slice(0, 24)}`;
}

/** A row of `cart_lines` as SQLite returns it. */
export interface LineRow extends Record<string, SqlStorageValue> {
  id: string;
  variant_id: string;
  /** Canonical JSON of the line's attributes (`canonicalAttributes`): with `variant_id`, what makes a line one line. */
  attributes: string;
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
  /** The variant's options as JSON (`{"size":"M","color":"Black"}`), as the variants endpoint answers them. */
  options: string;
  sku: string | null;
  /** The line's picture as JSON (`ImageRecord`), or null. */
  image: string | null;
  /** Per unit, only above the price. */
  compare_at_minor: number | null;
  /** 1: the variant is shipped. */
  requires_shipping: number;
  weight_grams: number | null;
  /** The product's collection handles as JSON: discount targets. */
  collections: string;
}

/** The `cart` row's timestamps (epoch milliseconds). */
export interface CartTimes {
  created_at: number;
  updated_at: number;
  expires_at: number;
}

/** The `cart` row: its timestamps, note and attributes (canonical JSON), and what prices it. */
export interface CartHead extends CartTimes {
  note: string | null;
  attributes: string;
  /** The buyer as JSON (`Buyer`), or null. */
  buyer: string | null;
  /** The shopper's chosen shipping rate id; null: the cheapest. */
  shipping_option: string | null;
  /** The entered codes as JSON, trimmed, as typed. */
  discount_codes: string;
}

/** No attributes, as stored. */
export const NO_ATTRIBUTES = "{}";
/** No discount codes, as stored. */
export const NO_CODES = "[]";

/** A cart row's fields before anyone set them: no note, attributes, buyer, shipping option or codes. */
export const EMPTY_HEAD: Omit<CartHead, keyof CartTimes> = {
  note: null,
  attributes: NO_ATTRIBUTES,
  buyer: null,
  shipping_option: null,
  discount_codes: NO_CODES,
};

/**
 * Attributes as stored: JSON of the pairs with keys sorted, so `{"a":"1","b":"2"}` and
 * `{"b":"2","a":"1"}` are one set (one line, one fingerprint of a cart). Values stay as written.
 */
export function canonicalAttributes(attributes: Readonly<Record<string, string>> | null | undefined): string {
  if (!attributes) return NO_ATTRIBUTES;
  const keys = Object.keys(attributes).sort();
  if (keys.length === 0) return NO_ATTRIBUTES;
  return JSON.stringify(Object.fromEntries(keys.map((key) => [key, attributes[key]])));
}

function parseAttributes(stored: string): Record<string, string> {
  return stored === NO_ATTRIBUTES ? {} : (JSON.parse(stored) as Record<string, string>);
}

/** A line as the API shows it, but its `discount_allocations` (they depend on the whole cart's cost). */
function toLine(row: LineRow): Omit<CartLine, "discount_allocations"> {
  const currency = row.currency as Currency;
  return {
    object: "cart_line",
    id: row.id,
    variant_id: row.variant_id,
    handle: row.handle,
    title: row.title,
    variant_title: row.variant_title,
    options: JSON.parse(row.options) as Record<string, string>,
    sku: row.sku,
    image: row.image === null ? null : (JSON.parse(row.image) as ImageRecord),
    url: `/api/v1/products/${row.handle}`,
    quantity: row.quantity,
    unit_price: fromMinor(row.unit_price_minor, currency),
    compare_at_price: row.compare_at_minor === null ? null : fromMinor(row.compare_at_minor, currency),
    line_total: fromMinor(row.unit_price_minor * row.quantity, currency),
    available: row.available === 1,
    attributes: parseAttributes(row.attributes),
    in_stock: row.available === 1 && row.in_stock === 1,
    requires_shipping: row.requires_shipping === 1,
  };
}

/** Each line's discount allocations in a rendered cost, by line id (a line the cost does not price has none). */
function allocationsOf(cost: RenderedCost): Map<string, RenderedCost["lines"][number]["discount_allocations"]> {
  return new Map(cost.lines.map((line) => [line.id, line.discount_allocations]));
}

/**
 * The contract's Cart from stored rows and their rendered cost (./cost.ts). All sums are integer
 * minor units; `subtotal` counts only available lines, `total_quantity` counts every line the cart holds.
 */
export function buildCart(
  id: string,
  head: CartHead,
  rows: readonly LineRow[],
  cost: RenderedCost,
  currency: Currency = DEFAULT_CURRENCY,
): Cart {
  const allocations = allocationsOf(cost);
  const lines = rows.map((row) => ({ ...toLine(row), discount_allocations: allocations.get(row.id) ?? [] }));
  return cartOf(id, head, rows, lines, cost, currency);
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
  head: CartHead,
  rows: readonly LineRow[],
  lines: L[],
  cost: RenderedCost,
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
    cost: cost.cost,
    discounts: cost.discounts,
    discount_codes: cost.discount_codes,
    shipping_options: cost.shipping_options,
    shipping_option: cost.shipping_option,
    buyer: head.buyer === null ? null : (JSON.parse(head.buyer) as Buyer),
    note: head.note,
    attributes: parseAttributes(head.attributes),
    created_at: new Date(head.created_at).toISOString(),
    updated_at: new Date(head.updated_at).toISOString(),
    expires_at: new Date(head.expires_at).toISOString(),
  };
}

/**
 * Each row's rendered line, but its discount allocations (they depend on the whole cart). The
 * cart's rows are never changed in place (CartRows replaces a row it changes), so a row object
 * renders to the same text for as long as it lives.
 */
const renderedLines = new WeakMap<LineRow, string>();

/**
 * `JSON.stringify(buildCart(id, head, rows, cost))`, byte for byte, rendering only the lines not
 * rendered before: a write changes one line, and re-rendering every line of a large cart after
 * each write cost more than the write. JSON.stringify of an object is the concatenation of its
 * members' texts, so each line's kept text gets its `discount_allocations` (its last member)
 * spliced before its closing brace, and the lines are spliced into the shell's empty
 * `"lines":[]`, which is its first member after `id` (a `cart_<hex>` string).
 */
export function cartJson(
  id: string,
  head: CartHead,
  rows: readonly LineRow[],
  cost: RenderedCost,
  currency: Currency = DEFAULT_CURRENCY,
): string {
  const allocations = allocationsOf(cost);
  const lines: string[] = [];
  for (const row of rows) {
    let text = renderedLines.get(row);
    if (text === undefined) {
      text = JSON.stringify(toLine(row));
      renderedLines.set(row, text);
    }
    lines.push(`${text.slice(0, -1)},"discount_allocations":${JSON.stringify(allocations.get(row.id) ?? [])}}`);
  }
  const shell = JSON.stringify(cartOf(id, head, rows, [], cost, currency));
  const at = shell.indexOf('"lines":[]') + '"lines":['.length;
  return `${shell.slice(0, at)}${lines.join(",")}${shell.slice(at)}`;
}
