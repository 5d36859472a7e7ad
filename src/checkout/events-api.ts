import * as z from "zod/mini";
import { OrderIdSchema } from "./api.ts";
import { OrderEventIdSchema } from "./order-events.ts";

/**
 * The operator's read of order events still to deliver (contract 10.7), for the reference, the CLI
 * and the tests. The worker imports only its types (the route answers `eventJson`), so these stay
 * out of the bundle; the query it validates is ./order-events.ts's.
 */

export const OrderEventSchema = z.object({
  object: z.literal("order_event"),
  id: OrderEventIdSchema,
  type: z.enum(["order.created", "order.payment_mismatch"]),
  order_id: OrderIdSchema,
  created_at: z.iso.datetime(),
  attempts: z.number().check(z.int(), z.gte(0)),
  last_error: z.nullable(z.string()),
  /** null: given up (3 days without a 2xx). */
  next_attempt_at: z.nullable(z.iso.datetime()),
});
export type OrderEvent = z.infer<typeof OrderEventSchema>;

export const OrderEventListSchema = z.object({
  object: z.literal("list"),
  count: z.number().check(z.int(), z.gte(0)),
  data: z.array(OrderEventSchema),
  has_more: z.boolean(),
  webhook_url_set: z.boolean(),
});
export type OrderEventList = z.infer<typeof OrderEventListSchema>;
