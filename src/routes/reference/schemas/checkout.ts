/**
 * The OpenAPI documentation of the schemas of src/checkout/: their component ids, descriptions and
 * examples, attached to the schemas themselves (see src/openapi/schema-docs.ts). Node side only.
 */
import { documentSchema } from "../../../openapi/schema-docs.ts";
import {
  AttributesSchema,
  CheckoutIdSchema,
  CheckoutLineSchema,
  CheckoutSchema,
  CheckoutStatusSchema,
  CompleteCheckoutRequestSchema,
  CreateCheckoutRequestSchema,
  IgnoredEventSchema,
  OrderIdSchema,
  OrderLineSchema,
  OrderListSchema,
  OrderSchema,
  OrdersQuerySchema,
  PaidAmountSchema,
  PaymentStatusSchema,
  StorefrontEventSchema,
  WebhookReceiptSchema,
} from "../../../checkout/api.ts";
import { OrderEventListSchema, OrderEventSchema } from "../../../checkout/events-api.ts";
import { OrderEventIdSchema } from "../../../checkout/events-api.ts";
import { OrderEventsQuerySchema } from "../../../checkout/order-events.ts";
import { DifferenceSchema, ReconciliationSchema } from "../../../checkout/reconcile.ts";

// src/checkout/api.ts

documentSchema(CheckoutIdSchema, {
  id: "CheckoutId",
  description:
    "A checkout id (`chk_…`). It names the object that made it (the holder's cart), so a webhook can reach " +
    "the checkout with nothing else; the object still checks the checkout is one of its own.",
  example: `chk_${"0".repeat(64)}AbCdEfGhIjKlMnOp`,
});

documentSchema(OrderIdSchema, {
  id: "OrderId",
  description: "An order id (`ord_…`), derived from its checkout's id.",
  example: `ord_${"a".repeat(32)}`,
});

documentSchema(CheckoutStatusSchema, {
  id: "CheckoutStatus",
  description:
    "`open`: units held, waiting for payment, until `expires_at`. `completed`: paid, " +
    "`order_id` names the order. `expired`: nobody paid in time; the holds were released. " +
    "`canceled`: the shopper canceled it (`DELETE`) or started a newer checkout; holds released.",
});

documentSchema(AttributesSchema, {
  id: "Attributes",
  description: "Plain-text pairs carried from the cart (escape them when shown).",
});

documentSchema(PaymentStatusSchema, {
  id: "PaymentStatus",
  description: "`paid`: exactly `cost.total` was paid. `mismatch`: something else was (`amount_paid`).",
});

documentSchema(CreateCheckoutRequestSchema, {
  id: "CreateCheckoutRequest",
  description: "`{}`, or a `return_url` for the payment page to send the shopper back to.",
  example: { return_url: "https://shop.example/thanks" },
});

documentSchema(CreateCheckoutRequestSchema.shape.return_url, {
  description:
    "Where the payment page sends the shopper back: an absolute `https:` URL (under `npm run dev` " +
    "also `http://localhost` or `http://127.0.0.1`, any port). Leave it out for none.",
});

documentSchema(CheckoutLineSchema, {
  id: "CheckoutLine",
  description: "A frozen copy of a cart line, priced at the live catalog when the checkout was made.",
});

documentSchema(CheckoutLineSchema.shape.id, { description: "The cart line it was copied from." });

documentSchema(CheckoutLineSchema.shape.title, { description: "Plain text, not HTML (escape it)." });

documentSchema(CheckoutLineSchema.shape.variant_title, { description: "Plain text, not HTML (escape it)." });

documentSchema(CheckoutSchema, {
  id: "Checkout",
  description: "A cart frozen for payment, its units held in stock until `expires_at`.",
});

documentSchema(CheckoutSchema.shape.url, {
  description: "The hand-off to payment (see the operation's description); null when none is configured.",
});

documentSchema(CheckoutSchema.shape.order_id, { description: "The order, once `completed`." });

documentSchema(PaidAmountSchema, { description: "What the payment moved (`149.90`), checked against the total." });

documentSchema(CompleteCheckoutRequestSchema, {
  id: "CompleteCheckoutRequest",
  example: { payment_reference: "pi_3PqZx2Lk", amount: "149.90", currency: "USD" },
});

documentSchema(CompleteCheckoutRequestSchema.shape.payment_reference, {
  description: "The payment's id in the payment system (plain text, kept on the order).",
});

documentSchema(OrderLineSchema, { id: "OrderLine" });

documentSchema(OrderLineSchema.shape.oversold, {
  description: "Stock did not cover this line's units when the order was made (a late completion).",
});

documentSchema(OrderSchema, { id: "Order", description: "A paid checkout: written once, never changed." });

documentSchema(OrderSchema.shape.oversold, {
  description:
    "True when the checkout was completed after it expired or was canceled and stock no " +
    "longer covered every unit: the payment is real, so the order stands; fulfil or refund by hand.",
});

documentSchema(OrderListSchema, { id: "OrderList" });

documentSchema(OrdersQuerySchema, { id: "OrdersQuery" });

documentSchema(OrdersQuerySchema.shape.limit, { description: "1–250, default 50." });

documentSchema(OrdersQuerySchema.shape.starting_after, { description: "The next page: orders older than this one." });

documentSchema(OrdersQuerySchema.shape.since, {
  description: "Only orders created at or after this instant (ISO 8601 UTC).",
});

documentSchema(WebhookReceiptSchema, { id: "WebhookReceipt", description: "What the webhook did with the event." });

documentSchema(WebhookReceiptSchema.shape.handled, {
  description: "False for an event this endpoint does not act on (acknowledged, ignored).",
});

documentSchema(StorefrontEventSchema, {
  id: "StorefrontCheckoutEvent",
  description: "Signed with `Storefront-Signature`. Only `checkout.completed` is acted on.",
  example: {
    type: "checkout.completed",
    data: {
      checkout_id: `chk_${"0".repeat(64)}AbCdEfGhIjKlMnOp`,
      payment_reference: "pay_123",
      amount: "149.90",
      currency: "USD",
    },
  },
});

documentSchema(IgnoredEventSchema.shape.type, { not: { const: "checkout.completed" } });

// src/checkout/events-api.ts

documentSchema(OrderEventSchema, { id: "OrderEvent" });

documentSchema(OrderEventListSchema, { id: "OrderEventList" });

// src/checkout/order-events.ts

documentSchema(OrderEventIdSchema, { id: "OrderEventId" });

documentSchema(OrderEventsQuerySchema, { id: "OrderEventsQuery" });

documentSchema(OrderEventsQuerySchema.shape.limit, { description: "Page size, 1–250; 50 when absent." });

documentSchema(OrderEventsQuerySchema.shape.starting_after, {
  description:
    "The id (`evt_…`) of the previous page's last event: this page starts after it. An id that names no event is 400 `parameter_invalid`.",
});

// src/checkout/reconcile.ts

documentSchema(DifferenceSchema, { id: "ReconciliationDifference" });

documentSchema(ReconciliationSchema, {
  id: "Reconciliation",
  description: "Orders, holds and stock movements compared; `differences` is empty when they agree.",
});

documentSchema(ReconciliationSchema.shape.orders, {
  description: "Orders checked (those within the stock history, 90 days).",
});

documentSchema(ReconciliationSchema.shape.movements, { description: "Stock movements read, every shard." });

documentSchema(ReconciliationSchema.shape.open_holds, { description: "Checkout holds still holding units." });
