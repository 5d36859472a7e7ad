import { Hono } from "hono";
import {
  CheckoutPathParamsSchema,
  CompleteCheckoutRequestSchema,
  NoQuerySchema,
  OrderListSchema,
  OrderPathParamsSchema,
  OrderSchema,
  OrdersQuerySchema,
} from "../checkout/api.ts";
import { completeById } from "../checkout/client.ts";
import { OrdersStore } from "../checkout/orders.ts";
import { ReconciliationSchema, reconcile } from "../checkout/reconcile.ts";
import type { AppEnv } from "../http/app-env.ts";
import { invalidRequest, resourceMissing } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { validJson, validQuery } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { errors, JSON_BODY_ERRORS, QUERY_ERRORS, TOKEN_ERRORS } from "../openapi/errors.ts";
import { respondCheckout } from "./checkouts.ts";

const NO_STORE = ["X-Request-Id", "Cache-Control"] as const;

/**
 * The operator's checkouts and orders: complete a checkout the store's own payment system took
 * payment for, and read the orders. Behind OPERATOR_SECRET like the token surface; no CORS.
 */
export const orders = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .post(
    "/checkouts/:id/complete",
    describe({
      operationId: "completeCheckout",
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
    }),
    validQuery(NoQuerySchema),
    async (c, next) => {
      if (!CheckoutPathParamsSchema.safeParse({ id: c.req.param("id") }).success) {
        throw resourceMissing("No such checkout.", "id");
      }
      await next();
    },
    validJson(CompleteCheckoutRequestSchema),
    async (c) => {
      const reply = await completeById(c.env, c.req.param("id"), c.req.valid("json").payment_reference, "operator");
      // A repeat is not an Idempotency-Key replay: it answers the same order, without the header.
      return respondCheckout(c, { ...reply, replayed: false });
    },
  )
  .get(
    "/orders",
    describe({
      operationId: "listOrders",
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
    }),
    validQuery(OrdersQuerySchema),
    async (c) => {
      const query = c.req.valid("query");
      const page = await new OrdersStore(c.env.ORDERS).list({
        limit: query.limit ?? 50,
        ...(query.starting_after !== undefined ? { startingAfter: query.starting_after } : {}),
        ...(query.since !== undefined ? { since: Date.parse(query.since) } : {}),
      });
      if (!page) throw invalidRequest("parameter_invalid", "starting_after names no order.", "starting_after");
      return c.json({ object: "list" as const, ...page }, 200);
    },
  )
  .get(
    "/orders/:id",
    describe({
      operationId: "getOrder",
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
    }),
    validQuery(NoQuerySchema),
    async (c) => {
      const id = c.req.param("id");
      if (!OrderPathParamsSchema.safeParse({ id }).success) throw resourceMissing("No such order.", "id");
      const order = await new OrdersStore(c.env.ORDERS).get(id);
      if (!order) throw resourceMissing("No such order.", "id");
      return c.json(order, 200);
    },
  )
  .get(
    "/reconciliation",
    describe({
      operationId: "reconcileOrders",
      summary: "Reconcile orders, holds and stock",
      description:
        "Orders (D1) against every Stock shard's movement log and the holds still held; each " +
        "difference named (`kind`). `npm run orders -- check` prints it. Reads every shard's log.",
      tag: "Operator",
      auth: "operator",
      query: NoQuerySchema,
      responses: {
        200: { description: "The comparison.", schema: ReconciliationSchema, headers: NO_STORE },
        ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS),
      },
    }),
    validQuery(NoQuerySchema),
    async (c) => c.json(await reconcile(c.env), 200),
  );
