import { Hono } from "../http/hono.ts";
import { OrderPathParamsSchema } from "../checkout/api.ts";
import { NoQuerySchema } from "../catalog/api.ts";
import { madeBy } from "../checkout/client.ts";
import { OrdersStore } from "../checkout/orders.ts";
import type { AppEnv } from "../http/app-env.ts";
import { resourceMissing } from "../http/errors.ts";
import { noStore } from "../http/no-store.ts";
import { requireToken } from "../http/require-token.ts";
import { validQuery } from "../http/validate.ts";
import { describe } from "../openapi/describe.ts";
import { refuseRevoked } from "./checkouts.ts";

/**
 * The shopper's own orders: a receipt after the hand-off returns (contract 10.7). Only the token
 * holder whose checkout made the order reads it; anyone else gets the same 404 as for no order.
 */
export const shopperOrders = new Hono<AppEnv>()
  .use("*", noStore)
  .get("/:id", describe("getMyOrder"), requireToken, validQuery(NoQuerySchema), async (c) => {
    await refuseRevoked(c);
    const { holder } = c.var.principal;
    const id = c.req.param("id");
    if (!OrderPathParamsSchema.safeParse({ id }).success) throw resourceMissing("No such order.", "id");
    const order = await new OrdersStore(c.env.ORDERS).get(id);
    if (!order || !madeBy(c.env, holder, order.checkout_id)) throw resourceMissing("No such order.", "id");
    return c.json(order, 200);
  });
