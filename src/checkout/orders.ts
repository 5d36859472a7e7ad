import { type Currency, fromMinor } from "../money.ts";
import type { PaymentStatus, Received } from "../payment/amounts.ts";
import { sha256Hex } from "../sha256.ts";
import type { Order } from "./api.ts";
import { type FrozenBuyer, type FrozenCost, type FrozenLine, type FrozenShippingOption, renderFrozen } from "./cost.ts";
import { newestFirst } from "./d1-page.ts";
import { eventsOf, OrderEvents } from "./order-events.ts";

/** Who completed a checkout. */
export type CompletedBy = Order["completed_by"];

/** What an order is made of: the checkout's frozen content and how it was paid. */
export interface NewOrder {
  checkoutId: string;
  currency: Currency;
  lines: readonly FrozenLine[];
  note: string | null;
  attributes: Record<string, string>;
  /** The cost as the checkout froze it (never recomputed here). */
  cost: FrozenCost;
  buyer: FrozenBuyer | null;
  shippingOption: FrozenShippingOption | null;
  /** What the payment moved, and whether it is the cost's total in the order's currency. */
  received: Received;
  paymentStatus: PaymentStatus;
  paymentReference: string;
  completedBy: CompletedBy;
  /** Variant ids whose units stock did not cover (a late completion). */
  oversold: ReadonlySet<string>;
  checkoutCreatedAt: number;
  createdAt: number;
  /** Write the order's events too (ORDER_WEBHOOK_URL is set), in the same batch: the outbox. */
  emitEvents: boolean;
}

interface OrderRow extends Record<string, unknown> {
  id: string;
  checkout_id: string;
  currency: string;
  subtotal_minor: number;
  total_quantity: number;
  note: string | null;
  attributes: string;
  payment_reference: string;
  completed_by: CompletedBy;
  oversold: number;
  created_at: number;
  discount_total_minor: number;
  shipping_minor: number | null;
  tax_minor: number | null;
  tax_included: number;
  total_minor: number | null;
  discounts: string;
  buyer: string | null;
  shipping_option: string | null;
  amount_paid_minor: number | null;
  amount_paid_currency: string | null;
  payment_status: PaymentStatus;
}

interface OrderLineRow extends Record<string, unknown> {
  order_id: string;
  position: number;
  line_id: string;
  variant_id: string;
  handle: string;
  title: string;
  variant_title: string;
  quantity: number;
  unit_price_minor: number;
  attributes: string;
  oversold: number;
  discount_allocations: string;
}

/** One order line's units, for reconciliation. */
export interface OrderUnits {
  id: string;
  checkout_id: string;
  created_at: number;
  variant_id: string;
  quantity: number;
  oversold: number;
}

/** A page of orders, newest first. */
export interface OrderPage {
  count: number;
  data: Order[];
  has_more: boolean;
}

/**
 * The order id of a checkout: derived, not drawn, so every completion of one checkout (a retry
 * after a crash, a concurrent webhook) writes the same rows and the batch below is idempotent.
 */
export async function orderIdFor(checkoutId: string): Promise<string> {
  return `ord_${await sha256Hex(`order:${checkoutId}`, 16)}`;
}

function toOrder(row: OrderRow, lines: readonly OrderLineRow[]): Order {
  const currency = row.currency;
  const discounts = JSON.parse(row.discounts) as FrozenCost["discounts"];
  const cost: FrozenCost = {
    subtotal: row.subtotal_minor,
    discount_total: row.discount_total_minor,
    shipping: row.shipping_minor,
    tax: row.tax_minor,
    // An order written before payments were checked: its total was its subtotal.
    total: row.total_minor ?? row.subtotal_minor,
    tax_included: row.tax_included === 1,
    discounts,
  };
  const option = row.shipping_option ? (JSON.parse(row.shipping_option) as FrozenShippingOption) : null;
  const rendered = renderFrozen({ lines: [], currency, cost, shipping_option: option });
  return {
    object: "order",
    id: row.id,
    checkout_id: row.checkout_id,
    lines: lines.map((line) => ({
      object: "order_line",
      line_id: line.line_id,
      variant_id: line.variant_id,
      handle: line.handle,
      title: line.title,
      variant_title: line.variant_title,
      quantity: line.quantity,
      unit_price: fromMinor(line.unit_price_minor, currency),
      line_total: fromMinor(line.unit_price_minor * line.quantity, currency),
      attributes: JSON.parse(line.attributes) as Record<string, string>,
      discount_allocations: (
        JSON.parse(line.discount_allocations) as NonNullable<FrozenLine["discount_allocations"]>
      ).map((a) => ({ discount_id: a.discount_id, amount: fromMinor(a.amount, currency) })),
      oversold: line.oversold === 1,
    })),
    total_quantity: row.total_quantity,
    subtotal: fromMinor(row.subtotal_minor, currency),
    currency,
    note: row.note,
    attributes: JSON.parse(row.attributes) as Record<string, string>,
    cost: rendered.cost,
    discounts: rendered.discounts,
    buyer: row.buyer ? (JSON.parse(row.buyer) as FrozenBuyer) : null,
    shipping_option: rendered.shipping_option,
    payment_status: row.payment_status,
    amount_paid:
      row.amount_paid_minor === null || row.amount_paid_currency === null
        ? null
        : fromMinor(row.amount_paid_minor, row.amount_paid_currency),
    payment_reference: row.payment_reference,
    completed_by: row.completed_by,
    oversold: row.oversold === 1,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/**
 * The orders adapter: the only code that reads or writes the ORDERS database's orders (D1; its
 * events are ./order-events.ts's). An order is written once, in one batch (one transaction, its
 * events included), with `INSERT OR IGNORE` on a primary key derived from the checkout and a
 * UNIQUE checkout_id: writing it again, from a retry or a racing completion, changes nothing, and
 * whoever wrote first decides what it says.
 */
export class OrdersStore {
  readonly #db: D1Database;

  constructor(db: D1Database) {
    this.#db = db;
  }

  /** Writes the order of a checkout unless it exists, and answers the order as stored. */
  async record(order: NewOrder): Promise<Order> {
    const id = await orderIdFor(order.checkoutId);
    // The subtotal as the checkout froze it, like every amount of the cost.
    const subtotal = order.cost.subtotal;
    let quantity = 0;
    for (const line of order.lines) quantity += line.quantity;
    const oversold = order.lines.some((line) => order.oversold.has(line.variant_id));
    const statements = [
      this.#db
        .prepare(
          `INSERT OR IGNORE INTO orders (id, checkout_id, currency, subtotal_minor, total_quantity, note, attributes,
             payment_reference, completed_by, oversold, checkout_created_at, created_at, discount_total_minor,
             shipping_minor, tax_minor, tax_included, total_minor, discounts, buyer, shipping_option,
             amount_paid_minor, amount_paid_currency, payment_status)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .bind(
          id,
          order.checkoutId,
          order.currency,
          subtotal,
          quantity,
          order.note,
          JSON.stringify(order.attributes),
          order.paymentReference,
          order.completedBy,
          oversold ? 1 : 0,
          order.checkoutCreatedAt,
          order.createdAt,
          order.cost.discount_total,
          order.cost.shipping,
          order.cost.tax,
          order.cost.tax_included ? 1 : 0,
          order.cost.total,
          JSON.stringify(order.cost.discounts),
          order.buyer ? JSON.stringify(order.buyer) : null,
          order.shippingOption ? JSON.stringify(order.shippingOption) : null,
          order.received.amount_minor,
          order.received.currency,
          order.paymentStatus,
        ),
      ...order.lines.map((line, position) =>
        this.#db
          .prepare(
            `INSERT OR IGNORE INTO order_lines (order_id, position, line_id, variant_id, handle, title, variant_title,
               quantity, unit_price_minor, attributes, oversold, discount_allocations)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .bind(
            id,
            position,
            line.id,
            line.variant_id,
            line.handle,
            line.title,
            line.variant_title,
            line.quantity,
            line.unit_price_minor,
            JSON.stringify(line.attributes),
            order.oversold.has(line.variant_id) ? 1 : 0,
            JSON.stringify(line.discount_allocations ?? []),
          ),
      ),
      ...(order.emitEvents
        ? new OrderEvents(this.#db).inserts(id, await eventsOf(id, order.paymentStatus), Date.now())
        : []),
    ];
    await this.#db.batch(statements);
    const stored = await this.get(id);
    if (!stored) throw new Error(`Order ${id} was written but cannot be read back.`);
    return stored;
  }

  /** One order by id, or null. */
  async get(id: string): Promise<Order | null> {
    const [orders, lines] = await this.#db.batch([
      this.#db.prepare("SELECT * FROM orders WHERE id = ?").bind(id),
      this.#db.prepare("SELECT * FROM order_lines WHERE order_id = ? ORDER BY position").bind(id),
    ]);
    const row = orders?.results[0] as OrderRow | undefined;
    return row ? toOrder(row, (lines?.results ?? []) as OrderLineRow[]) : null;
  }

  /** Orders newest first, `limit` per page, after the order `startingAfter` (null: no such order), created at or after `since`. */
  async list(options: { limit: number; startingAfter?: string; since?: number }): Promise<OrderPage | null> {
    const page = await newestFirst<OrderRow>(
      this.#db,
      "orders",
      "created_at >= ?",
      [options.since ?? 0],
      options.limit,
      options.startingAfter,
    );
    if (!page) return null;
    const lines = await this.#linesOf(page.rows.map((row) => row.id));
    return {
      count: page.count,
      data: page.rows.map((row) => toOrder(row, lines.get(row.id) ?? [])),
      has_more: page.has_more,
    };
  }

  /** Every order's id, checkout and units per variant: what `orders -- check` reconciles. */
  async unitsByOrder(): Promise<OrderUnits[]> {
    const { results } = await this.#db
      .prepare(
        `SELECT o.id, o.checkout_id, o.created_at, l.variant_id, l.quantity, l.oversold
         FROM orders o JOIN order_lines l ON l.order_id = o.id ORDER BY o.created_at, o.id, l.position`,
      )
      .all<OrderUnits>();
    return results;
  }

  /** The checkouts of the orders that carry discount `discountId` (in `discounts`): what its committed uses must equal. */
  async checkoutsWithDiscount(discountId: string): Promise<string[]> {
    const { results } = await this.#db
      .prepare(
        `SELECT checkout_id FROM orders
         WHERE EXISTS (SELECT 1 FROM json_each(orders.discounts) WHERE json_extract(value, '$.id') = ?)`,
      )
      .bind(discountId)
      .all<{ checkout_id: string }>();
    return results.map((row) => row.checkout_id);
  }

  /** Orders whose payment did not match their total, newest first: what `orders -- check` names. */
  async mismatched(since: number): Promise<Order[]> {
    const { results } = await this.#db
      .prepare(
        "SELECT * FROM orders WHERE payment_status = 'mismatch' AND created_at > ? ORDER BY created_at DESC, id DESC",
      )
      .bind(since)
      .all<OrderRow>();
    const lines = await this.#linesOf(results.map((row) => row.id));
    return results.map((row) => toOrder(row, lines.get(row.id) ?? []));
  }

  async #linesOf(ids: readonly string[]): Promise<Map<string, OrderLineRow[]>> {
    const out = new Map<string, OrderLineRow[]>();
    // D1 binds at most 100 parameters per statement: a page of up to 250 orders is read in slices.
    const slices: string[][] = [];
    for (let at = 0; at < ids.length; at += 90) slices.push(ids.slice(at, at + 90));
    if (slices.length === 0) return out;
    const answers = await this.#db.batch(
      slices.map((slice) =>
        this.#db
          .prepare(`SELECT * FROM order_lines WHERE order_id IN (${slice.map(() => "?").join(",")}) ORDER BY position`)
          .bind(...slice),
      ),
    );
    for (const answer of answers) {
      for (const line of answer.results as OrderLineRow[])
        out.set(line.order_id, [...(out.get(line.order_id) ?? []), line]);
    }
    return out;
  }
}
