import type { OperationDoc } from "../../openapi/spec.ts";
import { IdempotencyKeySchema } from "../../cart/api.ts";
import { CheckoutPathParamsSchema, CheckoutSchema, CreateCheckoutRequestSchema } from "../../checkout/api.ts";
import { NoQuerySchema } from "../../catalog/api.ts";
import { CART_WRITE_ERRORS, errors, JSON_BODY_ERRORS, QUERY_ERRORS, TOKEN_ERRORS } from "../../openapi/errors.ts";
import type { ResponseSpec } from "../../openapi/spec.ts";

import { FROZEN_COST } from "./cart-cost.ts";

const HEADERS = ["X-Request-Id", "Cache-Control", "Vary"] as const;

function checkoutOk(description: string, extra: readonly "Idempotent-Replayed"[] = []): ResponseSpec {
  return { description, schema: CheckoutSchema, headers: [...HEADERS, ...extra] };
}

/** The states, the hand-off and completion are told once, in the reference's "Checkout and orders" (src/openapi/guide.ts, not bundled). */
const SEE = "States, the hand-off `url` and completion: the reference's Checkout and orders section.";

/** The OpenAPI description of src/routes/checkouts.ts's operations, by operationId (never in the Worker bundle). */
export const CHECKOUTS_DOCS = {
  createCheckout: {
    summary: "Check out the cart",
    description:
      "Re-prices the holder's cart at the live catalog and the live rules, reserves a use of " +
      "each limited or once-per-buyer discount it applies and holds every line's units in stock " +
      "(all or none) for `CHECKOUT_HOLD_SECONDS`: 201 with the Checkout (lines frozen with " +
      "their prices and discount allocations; `cost`, `discounts`, `buyer` and `shipping_option` " +
      "frozen as the cart answered them). 409 `checkout_unavailable` names each line at fault in " +
      "`lines`, a shipping fault in `shipping`, a discount the checkout cannot apply in " +
      "`discount_codes` (`once_per_buyer`, `usage_limit_reached`), and holds nothing; 400 `cart_empty`. For a tracked variant the live level decides, whatever " +
      "`available` the catalog was published with. One open checkout per holder: its units " +
      "count for the new one, which cancels it once it holds; a refused checkout leaves it as " +
      "it was. Holds cannot be hoarded: a holder's hold on a variant lasts " +
      "`CHECKOUT_HOLD_SECONDS` from its first hold (a checkout made again keeps that " +
      "`expires_at`), then the holder waits `CHECKOUT_HOLD_COOLDOWN_SECONDS` (default 300) " +
      "before holding it again (line code `hold_cooldown`, with `cooldown_ends_at`; a purchase " +
      "needs no wait), and holds at most `CHECKOUT_MAX_UNITS_PER_VARIANT` (default 10) of a " +
      "tracked `deny` variant (`hold_limit`, with `max_quantity`). At most 10 a minute per " +
      "token and 60 a minute per client address (an IPv6 address by its /64): 429 " +
      "`rate_limited` with `Retry-After`. Body `{}`, none, or `{return_url}` (https only). " +
      "`Idempotency-Key` replays the first answer: a refusal as it was, a 201 with that checkout " +
      "as it is at the replay (its `status` may have moved on; the key keeps the checkout's id, " +
      "not a copy). A checkout is not a cart write: it spends its own limits, not the cart's 120 a " +
      "minute. With `PAYMENT_PROVIDER=stripe` the worker creates the " +
      "Stripe Checkout Session itself and `url` is its page; `return_url` is then required (400 " +
      "`parameter_missing`: Stripe's page sends the shopper back there), and Stripe down, timing " +
      "out or refusing is 502 `payment_provider_unavailable` with nothing held and no checkout " +
      `left open. ${FROZEN_COST} ${SEE}`,
    tag: "Checkout",
    auth: "bearer",
    query: NoQuerySchema,
    requestHeaders: [{ name: "Idempotency-Key", schema: IdempotencyKeySchema }],
    body: {
      schema: CreateCheckoutRequestSchema,
      required: false,
      examples: {
        empty: { summary: "No return URL", value: {} },
        returnUrl: { summary: "With a return URL", value: { return_url: "https://shop.example/thanks" } },
      },
    },
    responses: {
      201: checkoutOk("The open checkout.", ["Idempotent-Replayed"]),
      ...errors(
        ...CART_WRITE_ERRORS,
        ...QUERY_ERRORS,
        ...JSON_BODY_ERRORS,
        "cart_empty",
        "checkout_unavailable",
        "parameter_missing",
        "payment_provider_unavailable",
      ),
    },
  },
  getCheckout: {
    summary: "Get a checkout",
    description: `The holder's own checkout; any other id (another holder's included) is 404. ${FROZEN_COST} ${SEE}`,
    tag: "Checkout",
    auth: "bearer",
    params: CheckoutPathParamsSchema,
    query: NoQuerySchema,
    responses: {
      200: checkoutOk("The checkout and its status."),
      ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS, "resource_missing"),
    },
  },
  cancelCheckout: {
    summary: "Cancel a checkout",
    description:
      "Cancels the holder's open checkout and releases its holds; again answers the same. " +
      "A Stripe session of the checkout is expired at Stripe right after (retried until Stripe " +
      "confirms; the cancel never waits for it), so it cannot be paid. " +
      "Completed or expired: 409 `checkout_not_open`. Another holder's id: 404.",
    tag: "Checkout",
    auth: "bearer",
    params: CheckoutPathParamsSchema,
    query: NoQuerySchema,
    responses: {
      200: checkoutOk("The canceled checkout."),
      ...errors(...TOKEN_ERRORS, ...QUERY_ERRORS, "resource_missing", "checkout_not_open"),
    },
  },
} satisfies Record<string, OperationDoc>;
