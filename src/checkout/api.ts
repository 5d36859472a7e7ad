import * as z from "zod/mini";
import { CurrencySchema, MoneySchema } from "../money.ts";
// The cost's parts a checkout and its order answer are the cart's, defined once (src/pricing/api.ts).
import {
  AppliedDiscountSchema,
  BuyerSchema,
  CostSchema,
  DiscountAllocationSchema,
  ShippingOptionSchema,
} from "../pricing/api.ts";

/**
 * Request and response schemas of checkouts, orders and the checkout webhook: the routes validate
 * with them, the OpenAPI document is generated from them, tests parse real answers with them.
 *
 * The schemas of answers, which only the reference and the tests parse, are each built by an
 * arrow function called at once and marked `@__PURE__`: the bundler can then leave out of the
 * Worker each one no Worker code uses (docs/decisions/0009-schema-docs-out-of-the-worker.md, "Answers' schemas").
 */

/** `chk_` + the holder's checkout Durable Object id (64 hex) + 16 random base62 characters. */
export const CHECKOUT_ID_PATTERN = /^chk_([0-9a-f]{64})([A-Za-z0-9]{16})$/;

export const CheckoutIdSchema = z.string().check(z.regex(CHECKOUT_ID_PATTERN));

export const OrderIdSchema = z.string().check(z.regex(/^ord_[0-9a-f]{32}$/));

export const CheckoutStatusSchema = /* @__PURE__ */ (() => z.enum(["open", "completed", "expired", "canceled"]))();
export type CheckoutStatus = z.infer<typeof CheckoutStatusSchema>;

/** Attributes (cart note attributes, line properties): plain-text pairs. */
export const AttributesSchema = /* @__PURE__ */ (() => z.record(z.string(), z.string()))();

export const PaymentStatusSchema = /* @__PURE__ */ (() => z.enum(["paid", "mismatch"]))();

export const CreateCheckoutRequestSchema = z.strictObject({
  return_url: z.optional(
    z
      .string()
      .check(
        z.regex(
          /^(https:\/\/[A-Za-z0-9.-]+|http:\/\/(localhost|127\.0\.0\.1))(:\d{1,5})?([/?#][^\s]*)?$/,
          "an absolute https URL (or http://localhost or http://127.0.0.1 under npm run dev)",
        ),
        z.maxLength(2048),
      ),
  ),
});
export type CreateCheckoutRequest = z.infer<typeof CreateCheckoutRequestSchema>;

export const CheckoutPathParamsSchema = z.strictObject({ id: CheckoutIdSchema });
export const OrderPathParamsSchema = z.strictObject({ id: OrderIdSchema });

export const CheckoutLineSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("checkout_line"),
    id: z.string(),
    variant_id: z.string(),
    handle: z.string(),
    title: z.string(),
    variant_title: z.string(),
    quantity: z.number().check(z.int(), z.gte(1)),
    unit_price: MoneySchema,
    line_total: MoneySchema,
    attributes: AttributesSchema,
    discount_allocations: z.array(DiscountAllocationSchema),
  }))();
export type CheckoutLine = z.infer<typeof CheckoutLineSchema>;

export const CheckoutSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("checkout"),
    id: CheckoutIdSchema,
    status: CheckoutStatusSchema,
    lines: z.array(CheckoutLineSchema),
    total_quantity: z.number().check(z.int(), z.gte(1)),
    subtotal: MoneySchema,
    // The cost as the checkout froze it (contract 10.7), answered as the cart answers its own.
    cost: CostSchema,
    discounts: z.array(AppliedDiscountSchema),
    buyer: z.nullable(BuyerSchema),
    shipping_option: z.nullable(ShippingOptionSchema),
    currency: CurrencySchema,
    note: z.nullable(z.string()),
    attributes: AttributesSchema,
    return_url: z.nullable(z.string()),
    url: z.nullable(z.string()),
    order_id: z.nullable(OrderIdSchema),
    created_at: z.iso.datetime(),
    expires_at: z.iso.datetime(),
  }))();
export type Checkout = z.infer<typeof CheckoutSchema>;

/** What a payment moved, as the payment side says it: a decimal string in its currency's digits. */
export const PaidAmountSchema = z.string().check(z.regex(/^\d{1,13}(\.\d{1,4})?$/, "a decimal string such as 149.90"));

/** The ISO 4217 currency the payment moved (the catalog's schema: registering it again would rename it everywhere). */
export const PaidCurrencySchema = CurrencySchema;

export const CompleteCheckoutRequestSchema = z.strictObject({
  payment_reference: z.string().check(z.minLength(1), z.maxLength(255)),
  amount: PaidAmountSchema,
  currency: PaidCurrencySchema,
});

export const OrderLineSchema = /* @__PURE__ */ (() =>
  z.object({
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
    discount_allocations: z.array(DiscountAllocationSchema),
    oversold: z.boolean(),
  }))();

export const OrderSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("order"),
    id: OrderIdSchema,
    checkout_id: CheckoutIdSchema,
    lines: z.array(OrderLineSchema),
    total_quantity: z.number().check(z.int(), z.gte(1)),
    subtotal: MoneySchema,
    currency: CurrencySchema,
    note: z.nullable(z.string()),
    attributes: AttributesSchema,
    cost: CostSchema,
    discounts: z.array(AppliedDiscountSchema),
    buyer: z.nullable(BuyerSchema),
    shipping_option: z.nullable(ShippingOptionSchema),
    payment_status: PaymentStatusSchema,
    amount_paid: z.nullable(MoneySchema),
    payment_reference: z.string(),
    completed_by: z.enum(["operator", "webhook", "stripe"]),
    oversold: z.boolean(),
    created_at: z.iso.datetime(),
  }))();
export type Order = z.infer<typeof OrderSchema>;

export const OrderListSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("list"),
    count: z.number().check(z.int(), z.gte(0)),
    data: z.array(OrderSchema),
    has_more: z.boolean(),
  }))();

export const OrdersQuerySchema = z.strictObject({
  limit: z.optional(z.coerce.number().check(z.int(), z.gte(1), z.lte(250))),
  starting_after: z.optional(OrderIdSchema),
  since: z.optional(z.iso.datetime()),
});
export type OrdersQuery = z.infer<typeof OrdersQuerySchema>;

export const WebhookReceiptSchema = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal("webhook_receipt"),
    handled: z.boolean(),
    type: z.string(),
    checkout_id: z.nullable(CheckoutIdSchema),
    order_id: z.nullable(OrderIdSchema),
    payment_status: z.nullable(PaymentStatusSchema),
  }))();
export type WebhookReceipt = z.infer<typeof WebhookReceiptSchema>;

/** `checkout.completed`, the one event the storefront's webhook acts on: its `data` is required. */
export const CheckoutCompletedEventSchema = z.object({
  type: z.literal("checkout.completed"),
  data: z.object({
    checkout_id: z.string(),
    payment_reference: z.string().check(z.minLength(1), z.maxLength(255)),
    amount: PaidAmountSchema,
    currency: PaidCurrencySchema,
  }),
});

/** Any other type: acknowledged and ignored (200 `handled: false`), whatever its `data`. */
export const IgnoredEventSchema = z.object({
  type: z.string().check(
    z.minLength(1),
    z.maxLength(100),
    z.refine((type) => type !== "checkout.completed", "checkout.completed needs data"),
  ),
  data: z.optional(z.unknown()),
});

/** The storefront's own event (issue 42, point 19: `data` was optional in the document, required by the route). */
export const StorefrontEventSchema = z.union([CheckoutCompletedEventSchema, IgnoredEventSchema]);

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
        amount_total: z.optional(z.nullable(z.number())),
        currency: z.optional(z.nullable(z.string())),
        total_details: z.optional(z.nullable(z.looseObject({ amount_tax: z.optional(z.nullable(z.number())) }))),
      }),
    }),
  ),
});
