import type { OperationDoc } from "../../openapi/spec.ts";
import { FROZEN_COST } from "./cart-cost.ts";
import { OrderPathParamsSchema, OrderSchema } from "../../checkout/api.ts";
import { NoQuerySchema } from "../../catalog/api.ts";
import { errors, QUERY_ERRORS, BEARER_ERRORS } from "../../openapi/errors.ts";

/** The OpenAPI description of src/routes/shopper-orders.ts's operations, by operationId (never in the Worker bundle). */
export const SHOPPER_ORDERS_DOCS = {
  getMyOrder: {
    summary: "Get your order (receipt)",
    description:
      "The order a checkout of this token's holder became, so a storefront can show a receipt after " +
      "the payment page sends the shopper back (`return_url`; the checkout's `order_id` names it). " +
      "Any other order, another holder's included, is 404 as if there were none. The order carries its " +
      "frozen `cost`, `discounts`, `buyer`, `shipping_option`, what was paid (`amount_paid`) and " +
      "`payment_status`: `mismatch` means the payment moved another amount than `cost.total` (the " +
      `store refunds or collects the difference), never a normal paid order. ${FROZEN_COST}`,
    tag: "Checkout",
    auth: "bearer",
    params: OrderPathParamsSchema,
    query: NoQuerySchema,
    responses: {
      200: { description: "The order.", schema: OrderSchema, headers: ["X-Request-Id", "Cache-Control", "Vary"] },
      ...errors(...BEARER_ERRORS, ...QUERY_ERRORS, "resource_missing"),
    },
  },
} satisfies Record<string, OperationDoc>;
