import * as z from "zod/mini";
import { OrderIdSchema } from "./api.ts";

/** The operator's read of order events still to deliver (contract 10.7): route, reference and CLI share these. */

export const OrderEventIdSchema = z
  .string()
  .check(z.regex(/^evt_[0-9a-f]{32}$/))
  .register(z.globalRegistry, { id: "OrderEventId", example: `evt_${"b".repeat(32)}` });

export const OrderEventSchema = z
  .object({
    object: z.literal("order_event"),
    id: OrderEventIdSchema,
    type: z.enum(["order.created", "order.payment_mismatch"]),
    order_id: OrderIdSchema,
    created_at: z.iso.datetime(),
    attempts: z.number().check(z.int(), z.gte(0)),
    last_error: z.nullable(z.string()),
    /** null: given up (3 days without a 2xx). */
    next_attempt_at: z.nullable(z.iso.datetime()),
  })
  .register(z.globalRegistry, { id: "OrderEvent" });
export type OrderEvent = z.infer<typeof OrderEventSchema>;

export const OrderEventListSchema = z
  .object({
    object: z.literal("list"),
    count: z.number().check(z.int(), z.gte(0)),
    data: z.array(OrderEventSchema),
    has_more: z.boolean(),
    webhook_url_set: z.boolean(),
  })
  .register(z.globalRegistry, { id: "OrderEventList" });
export type OrderEventList = z.infer<typeof OrderEventListSchema>;

export const OrderEventsQuerySchema = z
  .strictObject({
    limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(250))),
    starting_after: z.optional(OrderEventIdSchema),
  })
  .register(z.globalRegistry, { id: "OrderEventsQuery" });
