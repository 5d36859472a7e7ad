import type { OperationDoc } from "../../openapi/spec.ts";
import { FROZEN_COST } from "./cart-cost.ts";
import {
  CheckoutPathParamsSchema,
  CompleteCheckoutRequestSchema,
  OrderListSchema,
  OrderPathParamsSchema,
  OrderSchema,
  OrdersQuerySchema,
} from "../../checkout/api.ts";
import { NoQuerySchema } from "../../catalog/api.ts";
import { ReconciliationSchema } from "../../checkout/reconcile.ts";
import { OrderEventListSchema } from "../../checkout/events-api.ts";
import { OrderEventsQuerySchema } from "../../checkout/order-events.ts";
import { errors, JSON_BODY_ERRORS, OPERATOR_ERRORS, QUERY_ERRORS } from "../../openapi/errors.ts";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

/** The OpenAPI description of src/routes/orders.ts's operations, by operationId (never in the Worker bundle). */
export const ORDERS_DOCS = {
  completeCheckout: {
    summary: "Complete a checkout",
    description:
      "Marks a checkout paid, exactly once: one order in D1, holds turned into stock " +
      "decrements, the cart cleared. `amount` (decimal string) and `currency` say what the payment " +
      "moved (required): equal to the checkout's `cost.total` the order is `paid`; anything else " +
      "(another amount or currency, a partial payment) still writes the order, since the money " +
      "moved, with `payment_status: mismatch` and `amount_paid`, logs an error and makes " +
      "`npm run orders -- check` exit 1. Repeats (with the webhook too) answer the same order, " +
      "keeping the first `payment_reference` and amount. An expired or canceled checkout still " +
      "becomes an order, `oversold` where stock no longer covered it.",
    tag: "Operator",
    auth: "operator",
    params: CheckoutPathParamsSchema,
    query: NoQuerySchema,
    body: {
      schema: CompleteCheckoutRequestSchema,
      examples: {
        paid: {
          summary: "The checkout's total",
          value: { payment_reference: "pi_3PqZx2Lk", amount: "149.90", currency: "USD" },
        },
      },
    },
    responses: {
      200: { description: "The order.", schema: OrderSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS, ...JSON_BODY_ERRORS, "parameter_missing", "resource_missing"),
    },
  },
  listOrders: {
    summary: "List orders",
    description:
      "Newest first; `starting_after=<order id>` pages, `since=<ISO 8601>` keeps orders " +
      "created at or after it; `count` counts the matches.",
    tag: "Operator",
    auth: "operator",
    query: OrdersQuerySchema,
    responses: {
      200: { description: "A page of orders.", schema: OrderListSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS),
    },
  },
  getOrder: {
    summary: "Get an order",
    description:
      "One order, as its completion answered it: the cost the checkout froze, the buyer, what was " +
      `paid (\`amount_paid\`) and \`payment_status\`. ${FROZEN_COST}`,
    tag: "Operator",
    auth: "operator",
    params: OrderPathParamsSchema,
    query: NoQuerySchema,
    responses: {
      200: { description: "The order.", schema: OrderSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS, "resource_missing"),
    },
  },
  listOrderEvents: {
    summary: "List undelivered order events",
    description:
      "The order events (`order.created`, `order.payment_mismatch`) not yet delivered to " +
      "`ORDER_WEBHOOK_URL`, newest first (`limit` 1–250, default 50; `starting_after=<event id>` " +
      "pages): each with its `attempts`, `last_error` (`HTTP 503`, `network error (…)`, `no answer " +
      "within 10 s`, or a setting missing) and `next_attempt_at`, which is `null` once it was given " +
      "up, 3 days after it was written. A delivered event leaves the list. `webhook_url_set: false` " +
      "says orders write no events (`ORDER_WEBHOOK_URL` is empty). `npm run orders -- events` prints " +
      "it. The reference's Order events section says what a receiver gets.",
    tag: "Operator",
    auth: "operator",
    query: OrderEventsQuerySchema,
    responses: {
      200: { description: "A page of undelivered events.", schema: OrderEventListSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS),
    },
  },
  reconcileOrders: {
    summary: "Reconcile orders, holds and stock",
    description:
      "Orders (D1) against every Stock shard's movement log and the holds still held, and every " +
      "order whose payment did not match its total (`payment_mismatch`, within the 90 days of the " +
      "stock history); each difference named (`kind`). `npm run orders -- check` prints it and " +
      "exits 1 on any. Reads every shard's log. A line needs a stock commit only if its variant " +
      "was tracked when the order was paid (the shard committed the checkout's hold without it " +
      "otherwise): a variant tracked later, by a publish or by the operator, makes no " +
      "`order_without_stock_commit`.",
    tag: "Operator",
    auth: "operator",
    query: NoQuerySchema,
    responses: {
      200: { description: "The comparison.", schema: ReconciliationSchema, headers: NO_STORE },
      ...errors(...OPERATOR_ERRORS, ...QUERY_ERRORS),
    },
  },
} satisfies Record<string, OperationDoc>;
