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
        "Marks a checkout paid, exactly once: writes one order (D1) with its lines, prices, note, " +
        "attributes and this `payment_reference`, turns its stock holds into decrements and " +
        "clears the holder's cart. Any number of repeated or concurrent completions (mixed with " +
        "the webhook) answer the same order; the first payment reference is the one kept. A " +
        "checkout that expired or was canceled is completed too (the payment is real): stock is " +
        "taken from what is left and the order is flagged `oversold` where it no longer covered " +
        "a line. An unknown checkout is 404.",
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
        "Newest first (by creation, then id), `limit` per page (1–250, default 50); " +
        "`starting_after=<order id>` gives the next page, `since=<ISO 8601>` keeps orders created " +
        "at or after that instant (a poller passes the last time it saw). `count` is the number " +
        "of orders matching `since`. An unknown `starting_after` is 400 `parameter_invalid`.",
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
      description: "One order, as its completion answered it. An unknown id is 404.",
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
        "Compares the orders (D1) with the stock movement log of every Stock shard and the " +
        "checkouts still holding units, and lists every difference: an order whose tracked line " +
        "has no stock commit or a commit of another quantity (`order_without_stock_commit`, " +
        "`commit_quantity_differs`), a stock commit by a checkout that has no order " +
        "(`stock_commit_without_order`: a completion cut short; completing the checkout again " +
        "writes the order), and a hold still holding units for a checkout that is not open " +
        "(`hold_left_open`). Orders older than the stock history (90 days) are not compared. " +
        "`npm run orders -- check` prints it and exits 1 on any difference. Reads every shard's " +
        "log: run it off-peak on a large store.",
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
