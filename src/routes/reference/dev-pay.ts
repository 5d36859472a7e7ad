import type { OperationDoc } from "../../openapi/spec.ts";
import * as z from "zod/mini";
import { CheckoutIdSchema } from "../../checkout/api.ts";
import { errors } from "../../openapi/errors.ts";

const ParamsSchema = z.strictObject({ id: CheckoutIdSchema });
const PageSchema = z.string().register(z.globalRegistry, { id: "TestPaymentPage", description: "An HTML page." });

/** The OpenAPI description of src/routes/dev-pay.ts's operations, by operationId (never in the Worker bundle). */
export const DEV_PAY_DOCS = {
  getTestPaymentPage: {
    summary: "Test payment page (development only)",
    description: "A checkout's hand-off under `npm run dev`: its lines and a Pay button. 404 outside development.",
    tag: "Service",
    auth: "none",
    params: ParamsSchema,
    responses: {
      200: { description: "The page.", schema: PageSchema, contentType: "text/html" },
      ...errors("route_not_found", "resource_missing"),
    },
  },
  payTestPaymentPage: {
    summary: "Pay on the test payment page (development only)",
    description: "Completes the checkout through the signed webhook. 404 outside development.",
    tag: "Service",
    auth: "none",
    params: ParamsSchema,
    responses: {
      200: { description: "The paid page.", schema: PageSchema, contentType: "text/html" },
      ...errors("route_not_found", "resource_missing"),
    },
  },
} satisfies Record<string, OperationDoc>;
