import type { OperationDoc } from "../../openapi/spec.ts";
import { StorefrontEventSchema, WebhookReceiptSchema } from "../../checkout/api.ts";
import { errors, JSON_BODY_ERRORS, QUERY_ERRORS } from "../../openapi/errors.ts";
import { NoQuerySchema } from "../../catalog/api.ts";
import { MAX_WEBHOOK_BYTES } from "../webhooks.ts";

const WEBHOOK_ERRORS = errors(
  ...QUERY_ERRORS,
  ...JSON_BODY_ERRORS,
  "signature_invalid",
  "timestamp_out_of_range",
  "parameter_invalid",
  "parameter_missing",
  "resource_missing",
);

/** The OpenAPI description of src/routes/webhooks.ts's operations, by operationId (never in the Worker bundle). */
export const WEBHOOKS_DOCS = {
  receiveCheckoutWebhook: {
    summary: "Complete a checkout (signed webhook)",
    description:
      "Completes a checkout whose payment succeeded, exactly once (repeats answer the same " +
      '`order_id`). `Storefront-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">` ' +
      "keyed with `CHECKOUT_WEBHOOK_SECRET`, for `checkout.completed` whose `data` carries " +
      "`amount` and `currency` (required); or Stripe's `Stripe-Signature` keyed with " +
      "`STRIPE_WEBHOOK_SECRET`, for `checkout.session.completed` (paid) and " +
      "`checkout.session.async_payment_succeeded`, `client_reference_id` = the checkout id, whose " +
      "`amount_total` and `currency` are what was paid. The amount is checked against the " +
      "checkout's `cost.total`: equal, the order is `paid`; different, it is still written with " +
      "`payment_status: mismatch` (the receipt says which). A session completed `unpaid` (a " +
      "delayed payment method) waits for `async_payment_succeeded`; " +
      "`checkout.session.async_payment_failed` cancels the checkout (no order, holds released). " +
      "A missing or wrong signature is 400 `signature_invalid`, one over 300 s " +
      "old 400 `timestamp_out_of_range`, nothing changed; other events 200 `handled: false`. " +
      "The reference's Checkout and orders section has a worked signing example.",
    tag: "Checkout",
    auth: "none",
    query: NoQuerySchema,
    body: {
      schema: StorefrontEventSchema,
      examples: {
        storefront: {
          summary: "checkout.completed",
          value: {
            type: "checkout.completed",
            data: {
              checkout_id: `chk_${"0".repeat(64)}AbCdEfGhIjKlMnOp`,
              payment_reference: "pay_1",
              amount: "149.90",
              currency: "USD",
            },
          },
        },
      },
    },
    responses: {
      200: {
        description: "The event was handled (`order_id` names the order) or acknowledged and ignored.",
        schema: WebhookReceiptSchema,
        headers: ["X-Request-Id", "Cache-Control"],
      },
      ...WEBHOOK_ERRORS,
      // A delivery may be 64 KiB (MAX_WEBHOOK_BYTES), not the API's 16: its own example says so.
      413: {
        ...WEBHOOK_ERRORS[413]!,
        description: "The delivery's body is larger than 64 KiB.",
        examples: {
          body_too_large: {
            summary: "Too large",
            value: {
              error: {
                type: "invalid_request_error",
                code: "body_too_large",
                message: `The request body is larger than ${MAX_WEBHOOK_BYTES / 1024} KiB.`,
              },
            },
          },
        },
      },
    },
  },
} satisfies Record<string, OperationDoc>;
