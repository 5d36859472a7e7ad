import * as z from "zod/mini";
import { OrderIdSchema } from "./api.ts";

/**
 * The operator's read of order events still to deliver (contract 10.7), for the reference, the CLI
 * and the tests. The worker uses only the event id's schema and the types (the route answers
 * `eventJson`); the query it validates is ./order-events.ts's.
 */

/** An order event's id: also its de-duplication key for a receiver. */
export const OrderEventIdSchema = z.string().check(z.regex(/^evt_[0-9a-f]{32}$/));

// Built by a pure arrow function called at once: the Worker never parses this answer, so the
// bundler leaves it out (docs/decisions/0009-schema-docs-out-of-the-worker.md).
export const OrderEventSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("order_event"),
    id: OrderEventIdSchema,
    type: z.enum(["order.created", "order.payment_mismatch"]),
    order_id: OrderIdSchema,
    created_at: z.iso.datetime(),
    attempts: z.number().check(z.int(), z.gte(0)),
    last_error: z.nullable(z.string()),
    /** null: given up (3 days without a 2xx). */
    next_attempt_at: z.nullable(z.iso.datetime()),
  }))();
export type OrderEvent = z.infer<typeof OrderEventSchema>;

export const OrderEventListSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("list"),
    count: z.number().check(z.int(), z.gte(0)),
    data: z.array(OrderEventSchema),
    has_more: z.boolean(),
    webhook_url_set: z.boolean(),
  }))();
export type OrderEventList = z.infer<typeof OrderEventListSchema>;
