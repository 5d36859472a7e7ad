import * as z from "zod/mini";
import { CurrencySchema, MoneySchema } from "../money.ts";

/**
 * Request and response schemas of checkouts, orders and the checkout webhook: the routes validate
 * with them, the OpenAPI document is generated from them, tests parse real answers with them.
 */

/** `chk_` + the holder's checkout Durable Object id (64 hex) + 16 random base62 characters. */
export const CHECKOUT_ID_PATTERN = /^chk_([0-9a-f]{64})([A-Za-z0-9]{16})$/;

export const CheckoutIdSchema = z
  .string()
  .check(z.regex(CHECKOUT_ID_PATTERN))
  .register(z.globalRegistry, {
    id: "CheckoutId",
    description:
      "A checkout id (`chk_…`). It names the holder's checkout object, so a webhook can reach " +
      "the checkout with nothing else; the object still checks the checkout is one of its own.",
    example: `chk_${"0".repeat(64)}AbCdEfGhIjKlMnOp`,
  });

export const OrderIdSchema = z
  .string()
  .check(z.regex(/^ord_[0-9a-f]{32}$/))
  .register(z.globalRegistry, {
    id: "OrderId",
    description: "An order id (`ord_…`), derived from its checkout's id.",
    example: `ord_${"a".repeat(32)}`,
  });

export const CheckoutStatusSchema = z.enum(["open", "completed", "expired", "canceled"]).register(z.globalRegistry, {
  id: "CheckoutStatus",
  description:
    "`open`: units held, waiting for payment, until `expires_at`. `completed`: paid, " +
    "`order_id` names the order. `expired`: nobody paid in time; the holds were released. " +
    "`canceled`: the shopper canceled it (`DELETE`) or started a newer checkout; holds released.",
});
export type CheckoutStatus = z.infer<typeof CheckoutStatusSchema>;

/** Attributes (cart note attributes, line properties): plain-text pairs. */
export const AttributesSchema = z.record(z.string(), z.string()).register(z.globalRegistry, {
  id: "Attributes",
  description: "Plain-text pairs carried from the cart (escape them when shown).",
});

export const CreateCheckoutRequestSchema = z
  .strictObject({
    return_url: z
      .optional(
        z
          .string()
          .check(
            z.regex(
              /^(https:\/\/[A-Za-z0-9.-]+|http:\/\/(localhost|127\.0\.0\.1))(:\d{1,5})?([/?#][^\s]*)?$/,
              "an absolute https URL (or http://localhost or http://127.0.0.1 under npm run dev)",
            ),
            z.maxLength(2048),
          ),
      )
      .register(z.globalRegistry, {
        description:
          "Where the payment page sends the shopper back: an absolute `https:` URL (under `npm run dev` " +
          "also `http://localhost` or `http://127.0.0.1`, any port). Leave it out for none.",
      }),
  })
  .register(z.globalRegistry, {
    id: "CreateCheckoutRequest",
    description: "`{}`, or a `return_url` for the payment page to send the shopper back to.",
    example: { return_url: "https://shop.example/thanks" },
  });
export type CreateCheckoutRequest = z.infer<typeof CreateCheckoutRequestSchema>;

export const CheckoutPathParamsSchema = z.strictObject({ id: CheckoutIdSchema });
export const OrderPathParamsSchema = z.strictObject({ id: OrderIdSchema });
export const NoQuerySchema = z.strictObject({});

export const CheckoutLineSchema = z
  .object({
    object: z.literal("checkout_line"),
    id: z.string().register(z.globalRegistry, { description: "The cart line it was copied from." }),
    variant_id: z.string(),
    handle: z.string(),
    title: z.string().register(z.globalRegistry, { description: "Plain text, not HTML (escape it)." }),
    variant_title: z.string().register(z.globalRegistry, { description: "Plain text, not HTML (escape it)." }),
    quantity: z.number().check(z.int(), z.gte(1)),
    unit_price: MoneySchema,
    line_total: MoneySchema,
    attributes: AttributesSchema,
  })
  .register(z.globalRegistry, {
    id: "CheckoutLine",
    description: "A frozen copy of a cart line, priced at the live catalog when the checkout was made.",
  });
export type CheckoutLine = z.infer<typeof CheckoutLineSchema>;

export const CheckoutSchema = z
  .object({
    object: z.literal("checkout"),
    id: CheckoutIdSchema,
    status: CheckoutStatusSchema,
    lines: z.array(CheckoutLineSchema),
    total_quantity: z.number().check(z.int(), z.gte(1)),
    subtotal: MoneySchema,
    currency: CurrencySchema,
    note: z.nullable(z.string()),
    attributes: AttributesSchema,
    return_url: z.nullable(z.string()),
    url: z.nullable(z.string()).register(z.globalRegistry, {
      description: "The hand-off to payment (see the operation's description); null when none is configured.",
    }),
    order_id: z.nullable(OrderIdSchema).register(z.globalRegistry, { description: "The order, once `completed`." }),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  })
  .register(z.globalRegistry, {
    id: "Checkout",
    description: "A cart frozen for payment, its units held in stock until `expires_at`.",
  });
export type Checkout = z.infer<typeof CheckoutSchema>;

export const CompleteCheckoutRequestSchema = z
  .strictObject({
    payment_reference: z.string().check(z.minLength(1), z.maxLength(255)).register(z.globalRegistry, {
      description: "The payment's id in the payment system (plain text, kept on the order).",
    }),
  })
  .register(z.globalRegistry, { id: "CompleteCheckoutRequest", example: { payment_reference: "pi_3PqZx2Lk" } });

export const OrderLineSchema = z
  .object({
    object: z.literal("order_line"),
    line_id: z.string(),
    variant_id: z.string(),
    handle: z.string(),
    title: z.string(),
    variant_title: z.string(),
    quantity: z.number().check(z.int(), z.gte(1)),
    unit_price: MoneySchema,
    line_total: MoneySchema,
    attributes: AttributesSchema,
    oversold: z.boolean().register(z.globalRegistry, {
      description: "Stock did not cover this line's units when the order was made (a late completion).",
    }),
  })
  .register(z.globalRegistry, { id: "OrderLine" });

export const OrderSchema = z
  .object({
    object: z.literal("order"),
    id: OrderIdSchema,
    checkout_id: CheckoutIdSchema,
    lines: z.array(OrderLineSchema),
    total_quantity: z.number().check(z.int(), z.gte(1)),
    subtotal: MoneySchema,
    currency: CurrencySchema,
    note: z.nullable(z.string()),
    attributes: AttributesSchema,
    payment_reference: z.string(),
    completed_by: z.enum(["operator", "webhook", "stripe"]),
    oversold: z.boolean().register(z.globalRegistry, {
      description:
        "True when the checkout was completed after it expired or was canceled and stock no " +
        "longer covered every unit: the payment is real, so the order stands; fulfil or refund by hand.",
    }),
    created_at: z.iso.datetime(),
  })
  .register(z.globalRegistry, { id: "Order", description: "A paid checkout: written once, never changed." });
export type Order = z.infer<typeof OrderSchema>;

export const OrderListSchema = z
  .object({
    object: z.literal("list"),
    count: z.number().check(z.int(), z.gte(0)),
    data: z.array(OrderSchema),
    has_more: z.boolean(),
  })
  .register(z.globalRegistry, { id: "OrderList" });

export const OrdersQuerySchema = z
  .strictObject({
    limit: z
      .optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(250)))
      .register(z.globalRegistry, { description: "1–250, default 50." }),
    starting_after: z
      .optional(OrderIdSchema)
      .register(z.globalRegistry, { description: "The next page: orders older than this one." }),
    since: z
      .optional(z.iso.datetime())
      .register(z.globalRegistry, { description: "Only orders created at or after this instant (ISO 8601 UTC)." }),
  })
  .register(z.globalRegistry, { id: "OrdersQuery" });
export type OrdersQuery = z.infer<typeof OrdersQuerySchema>;

export const WebhookReceiptSchema = z
  .object({
    object: z.literal("webhook_receipt"),
    handled: z.boolean().register(z.globalRegistry, {
      description: "False for an event this endpoint does not act on (acknowledged, ignored).",
    }),
    type: z.string(),
    checkout_id: z.nullable(CheckoutIdSchema),
    order_id: z.nullable(OrderIdSchema),
  })
  .register(z.globalRegistry, { id: "WebhookReceipt", description: "What the webhook did with the event." });
export type WebhookReceipt = z.infer<typeof WebhookReceiptSchema>;

/** `checkout.completed`, the one event the storefront's webhook acts on: its `data` is required. */
export const CheckoutCompletedEventSchema = z.object({
  type: z.literal("checkout.completed"),
  data: z.object({
    checkout_id: z.string(),
    payment_reference: z.string().check(z.minLength(1), z.maxLength(255)),
  }),
});

/** Any other type: acknowledged and ignored (200 `handled: false`), whatever its `data`. */
const IgnoredEventSchema = z.object({
  type: z
    .string()
    .check(
      z.minLength(1),
      z.maxLength(100),
      z.refine((type) => type !== "checkout.completed", "checkout.completed needs data"),
    )
    .register(z.globalRegistry, { not: { const: "checkout.completed" } }),
  data: z.optional(z.unknown()),
});

/** The storefront's own event (issue 42, point 19: `data` was optional in the document, required by the route). */
export const StorefrontEventSchema = z
  .union([CheckoutCompletedEventSchema, IgnoredEventSchema])
  .register(z.globalRegistry, {
    id: "StorefrontCheckoutEvent",
    description: "Signed with `Storefront-Signature`. The only type acted on is `checkout.completed`.",
    example: {
      type: "checkout.completed",
      data: { checkout_id: `chk_${"0".repeat(64)}AbCdEfGhIjKlMnOp`, payment_reference: "pay_123" },
    },
  });

/** The part of a Stripe event this endpoint reads (Stripe sends much more; the rest is ignored). */
export const StripeEventSchema = z.looseObject({
  type: z.string(),
  data: z.optional(
    z.looseObject({
      object: z.looseObject({
        id: z.optional(z.string()),
        client_reference_id: z.optional(z.nullable(z.string())),
        payment_intent: z.optional(z.nullable(z.string())),
        payment_status: z.optional(z.string()),
      }),
    }),
  ),
});
