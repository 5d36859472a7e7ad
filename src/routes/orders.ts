import { Hono } from "../http/hono.ts";
import {
  CheckoutPathParamsSchema,
  CompleteCheckoutRequestSchema,
  OrderPathParamsSchema,
  OrdersQuerySchema,
} from "../checkout/api.ts";
import { NoQuerySchema } from "../catalog/api.ts";
import { completeById } from "../checkout/client.ts";
import { eventsEnabled } from "../checkout/event-delivery.ts";
import { eventJson, OrderEvents, OrderEventsQuerySchema } from "../checkout/order-events.ts";
import { receivedFrom } from "../payment/amounts.ts";
import { OrdersStore } from "../checkout/orders.ts";
import { reconcile } from "../checkout/reconcile.ts";
import type { AppEnv } from "../http/app-env.ts";
import { invalidRequest, resourceMissing } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireOperator } from "../http/operator-auth.ts";
import { validJson, validQuery } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { respondCheckout } from "./checkouts.ts";

/**
 * The operator's checkouts and orders: complete a checkout the store's own payment system took
 * payment for, and read the orders. Behind OPERATOR_SECRET like the token surface; no CORS.
 */
export const orders = new Hono<AppEnv>()
  .use("*", noStore)
  .use("*", requireOperator)
  .post(
    "/checkouts/:id/complete",
    describe("completeCheckout"),
    validQuery(NoQuerySchema),
    async (c, next) => {
      if (!CheckoutPathParamsSchema.safeParse({ id: c.req.param("id") }).success) {
        throw resourceMissing("No such checkout.", "id");
      }
      await next();
    },
    validJson(CompleteCheckoutRequestSchema),
    async (c) => {
      const body = c.req.valid("json");
      const paid = receivedFrom(body.amount, body.currency);
      if (!paid)
        throw invalidRequest(
          "parameter_invalid",
          `${body.amount} has more decimals than ${body.currency} has.`,
          "amount",
        );
      const reply = await completeById(c.env, c.req.param("id"), body.payment_reference, "operator", paid);
      // A repeat is not an Idempotency-Key replay: it answers the same order, without the header.
      return respondCheckout(c, { ...reply, replayed: false });
    },
  )
  .get("/orders", describe("listOrders"), validQuery(OrdersQuerySchema), async (c) => {
    const query = c.req.valid("query");
    const page = await new OrdersStore(c.env.ORDERS).list({
      limit: query.limit ?? 50,
      ...(query.starting_after !== undefined ? { startingAfter: query.starting_after } : {}),
      ...(query.since !== undefined ? { since: Date.parse(query.since) } : {}),
    });
    if (!page) throw invalidRequest("parameter_invalid", "starting_after names no order.", "starting_after");
    return c.json({ object: "list" as const, ...page }, 200);
  })
  .get("/orders/:id", describe("getOrder"), validQuery(NoQuerySchema), async (c) => {
    const id = c.req.param("id");
    if (!OrderPathParamsSchema.safeParse({ id }).success) throw resourceMissing("No such order.", "id");
    const order = await new OrdersStore(c.env.ORDERS).get(id);
    if (!order) throw resourceMissing("No such order.", "id");
    return c.json(order, 200);
  })
  .get("/order-events", describe("listOrderEvents"), validQuery(OrderEventsQuerySchema), async (c) => {
    const query = c.req.valid("query");
    const page = await new OrderEvents(c.env.ORDERS).undelivered(query.limit ?? 50, query.starting_after);
    if (!page) throw invalidRequest("parameter_invalid", "starting_after names no event.", "starting_after");
    const { count, rows, has_more } = page;
    return c.json(
      { object: "list" as const, count, data: rows.map(eventJson), has_more, webhook_url_set: eventsEnabled(c.env) },
      200,
    );
  })
  .get("/reconciliation", describe("reconcileOrders"), validQuery(NoQuerySchema), async (c) =>
    c.json(await reconcile(c.env), 200),
  );
