import * as z from "zod/mini";
import { OrderSchema } from "../../checkout/api.ts";
import { OrderEventIdSchema } from "../../checkout/events-api.ts";

/**
 * What a store's receiver gets at ORDER_WEBHOOK_URL (contract 10.7), for the reference and the
 * tests; the worker writes it in src/checkout/event-delivery.ts (eventBody) and never parses it,
 * so this schema stays out of the bundle.
 */
export const OrderEventBodySchema = z
  .strictObject({
    object: z.literal("event"),
    id: OrderEventIdSchema,
    type: z.enum(["order.created", "order.payment_mismatch"]),
    created_at: z.iso.datetime(),
    data: z.strictObject({ object: OrderSchema }),
  })
  .register(z.globalRegistry, {
    id: "OrderEventBody",
    description:
      "An order event as POSTed to `ORDER_WEBHOOK_URL`: the same `id` and bytes on every retry " +
      "(de-duplicate on `id`), signed in `Storefront-Signature`; `data.object` is the order as " +
      "`GET /operator/orders/{id}` answers it.",
  });
export type OrderEventBody = z.infer<typeof OrderEventBodySchema>;
