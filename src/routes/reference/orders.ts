import type { OperationDoc } from "../../openapi/spec.ts";
import {
  CheckoutPathParamsSchema,
  CompleteCheckoutRequestSchema,
  NoQuerySchema,
  OrderListSchema,
  OrderPathParamsSchema,
  OrderSchema,
  OrdersQuerySchema,
} from "../../checkout/api.ts";
import { ReconciliationSchema } from "../../checkout/reconcile.ts";
import { errors, JSON_BODY_ERRORS, QUERY_ERRORS, TOKEN_ERRORS } from "../../openapi/errors.ts";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

/** The OpenAPI description of src/routes/orders.ts's operations, by operationId (never in the Worker bundle). */
export const ORDERS_DOCS = {
  completeCheckout: {
    summary: "Complete a checkout",
    description:
      "Marks a checkout paid, exactly once: one order in D1, holds turned into stock " +
      "decrements, the cart cleared. Repeats (with the webhook too) answer the same order, " +
      "keeping the first `payment_reference`. An expired or canceled checkout still becomes an " +
      "order, `oversold` where stock no longer covered it.",
    tag: "Operator",
    auth: "operator",
    params: CheckoutPathParamsSchema,
    query: NoQuerySchema,
    body: { schema: CompleteCheckoutRequestSchema },
    responses: {
      200: { description: "The order.", schema: OrderSchema, headers: NO_STORE },
      ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS, ...JSON_BODY_ERRORS, "parameter_missing", "resource_missing"),
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
      ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS),
    },
  },
  getOrder: {
    summary: "Get an order",
    description: "One order, as its completion answered it.",
    tag: "Operator",
    auth: "operator",
    params: OrderPathParamsSchema,
    query: NoQuerySchema,
    responses: {
      200: { description: "The order.", schema: OrderSchema, headers: NO_STORE },
      ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS, "resource_missing"),
    },
  },
  reconcileOrders: {
    summary: "Reconcile orders, holds and stock",
    description:
      "Orders (D1) against every Stock shard's movement log and the holds still held; each " +
      "difference named (`kind`). `npm run orders -- check` prints it. Reads every shard's log. " +
      "A line needs a stock commit only if its variant was tracked when the order was paid (the " +
      "shard committed the checkout's hold without it otherwise): a variant tracked later, by a " +
      "publish or by the operator, makes no `order_without_stock_commit`.",
    tag: "Operator",
    auth: "operator",
    query: NoQuerySchema,
    responses: {
      200: { description: "The comparison.", schema: ReconciliationSchema, headers: NO_STORE },
      ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS),
    },
  },
} satisfies Record<string, OperationDoc>;
