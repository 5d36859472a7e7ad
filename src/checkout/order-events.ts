import * as z from "zod/mini";
import type { PaymentStatus } from "../payment/amounts.ts";
import { sha256Hex } from "../sha256.ts";
import { newestFirst } from "./d1-page.ts";
import { type OrderEvent, OrderEventIdSchema } from "./events-api.ts";

/** `GET /operator/order-events`: a page of the undelivered (./events-api.ts has the answer's schema). */
export const OrderEventsQuerySchema = z.strictObject({
  limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(250))),
  starting_after: z.optional(OrderEventIdSchema),
});

/** What a store's systems are told (contract 10.7). */
export type OrderEventType = "order.created" | "order.payment_mismatch";

/** A queue message: the event, and which send of it is current (see migration 0003's `send`). */
export interface OrderEventMessage {
  event_id: string;
  send: number;
}

/** One row of the outbox (ORDERS `order_events`). */
export interface OrderEventRow extends Record<string, unknown> {
  id: string;
  type: OrderEventType;
  order_id: string;
  created_at: number;
  attempts: number;
  last_error: string | null;
  next_attempt_at: number | null;
  send: number;
  delivered_at: number | null;
}

/** A row as the operator reads it. */
export function eventJson(row: OrderEventRow): OrderEvent {
  const at = (ms: number) => new Date(ms).toISOString();
  return {
    object: "order_event",
    id: row.id,
    type: row.type,
    order_id: row.order_id,
    created_at: at(row.created_at),
    attempts: row.attempts,
    last_error: row.last_error,
    next_attempt_at: row.next_attempt_at === null ? null : at(row.next_attempt_at),
  };
}

/** The events an order emits: `order.created` always, and `order.payment_mismatch` when the payment did not match. */
export async function eventsOf(
  orderId: string,
  status: PaymentStatus,
): Promise<{ id: string; type: OrderEventType }[]> {
  const types: OrderEventType[] =
    status === "mismatch" ? ["order.created", "order.payment_mismatch"] : ["order.created"];
  return Promise.all(
    types.map(async (type) => ({ id: `evt_${await sha256Hex(`event:${orderId}:${type}`, 16)}`, type })),
  );
}

/**
 * The outbox adapter: the only code that reads or writes `order_events`. Rows are inserted in the
 * order's own batch (`OrdersStore.record`), with ids derived from the order, so a repeated
 * completion writes nothing new; every later change is a conditional UPDATE on the row.
 */
export class OrderEvents {
  readonly #db: D1Database;

  constructor(db: D1Database) {
    this.#db = db;
  }

  /** The INSERTs of an order's events (due now), for the batch that writes the order. */
  inserts(
    orderId: string,
    events: readonly { id: string; type: OrderEventType }[],
    now: number,
  ): D1PreparedStatement[] {
    return events.map((event) =>
      this.#db
        .prepare(
          "INSERT OR IGNORE INTO order_events (id, type, order_id, created_at, next_attempt_at) VALUES (?, ?, ?, ?, ?)",
        )
        .bind(event.id, event.type, orderId, now, now),
    );
  }

  get(id: string): Promise<OrderEventRow | null> {
    return this.#db.prepare("SELECT * FROM order_events WHERE id = ?").bind(id).first<OrderEventRow>();
  }

  /** An order's events still to deliver (not delivered, not given up). */
  async pending(orderId: string): Promise<OrderEventRow[]> {
    const { results } = await this.#db
      .prepare("SELECT * FROM order_events WHERE order_id = ? AND delivered_at IS NULL AND next_attempt_at IS NOT NULL")
      .bind(orderId)
      .all<OrderEventRow>();
    return results;
  }

  async delivered(id: string, now: number): Promise<void> {
    await this.#db
      .prepare(
        "UPDATE order_events SET delivered_at = ?, attempts = attempts + 1, last_error = NULL, next_attempt_at = NULL WHERE id = ? AND delivered_at IS NULL",
      )
      .bind(now, id)
      .run();
  }

  /**
   * Records a failed attempt of send `send`, due again at `nextAt` (null: given up). False when a
   * re-drive made another send current, or the event was delivered meanwhile: this message is spent.
   */
  async failed(id: string, send: number, error: string, nextAt: number | null): Promise<boolean> {
    const { meta } = await this.#db
      .prepare(
        "UPDATE order_events SET attempts = attempts + 1, last_error = ?, next_attempt_at = ? WHERE id = ? AND send = ? AND delivered_at IS NULL",
      )
      .bind(error.slice(0, 200), nextAt, id, send)
      .run();
    return meta.changes > 0;
  }

  /** Makes send `send + 1` current (a re-drive), unless something else changed the row first. */
  async resend(id: string, send: number): Promise<boolean> {
    const { meta } = await this.#db
      .prepare("UPDATE order_events SET send = send + 1 WHERE id = ? AND send = ? AND delivered_at IS NULL")
      .bind(id, send)
      .run();
    return meta.changes > 0;
  }

  /** Undelivered events, newest first, `limit` per page after the event `startingAfter` (null: no such event). */
  undelivered(limit: number, startingAfter?: string) {
    return newestFirst<OrderEventRow>(this.#db, "order_events", "delivered_at IS NULL", [], limit, startingAfter);
  }
}
