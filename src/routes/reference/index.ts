import { AUTH_DOCS } from "./auth.ts";
import { CART_DOCS } from "./cart.ts";
import { CARTS_DOCS } from "./carts.ts";
import { CHECKOUTS_DOCS } from "./checkouts.ts";
import { COLLECTIONS_DOCS } from "./collections.ts";
import { DEV_PAY_DOCS } from "./dev-pay.ts";
import { DOCS_DOCS } from "./docs.ts";
import { HEALTH_DOCS } from "./health.ts";
import { OPENAPI_DOCS } from "./openapi.ts";
import { OPERATOR_CATALOG_DOCS } from "./operator-catalog.ts";
import { OPERATOR_STOCK_DOCS } from "./operator-stock.ts";
import { OPERATOR_RULES_DOCS } from "./operator-rules.ts";
import { OPERATOR_DOCS } from "./operator.ts";
import { ORDERS_DOCS } from "./orders.ts";
import { PRODUCTS_DOCS } from "./products.ts";
import { SHOPPER_ORDERS_DOCS } from "./shopper-orders.ts";
import { WEBHOOKS_DOCS } from "./webhooks.ts";
import type { OperationDoc } from "../../openapi/spec.ts";
// The schemas' documentation, attached to the schemas the operations below name.
import "./schemas/index.ts";

/**
 * Every operation's OpenAPI description, by operationId. Routes carry only the id
 * (`describe("listProducts")`); the document builder (Node: `npm run docs:assets`, and the tests)
 * joins the two, so the descriptions, examples and response schemas stay out of the Worker bundle.
 */
export const OPERATION_DOCS: Record<string, OperationDoc> = {
  ...AUTH_DOCS,
  ...CART_DOCS,
  ...CARTS_DOCS,
  ...CHECKOUTS_DOCS,
  ...COLLECTIONS_DOCS,
  ...DEV_PAY_DOCS,
  ...DOCS_DOCS,
  ...HEALTH_DOCS,
  ...OPENAPI_DOCS,
  ...OPERATOR_CATALOG_DOCS,
  ...OPERATOR_STOCK_DOCS,
  ...OPERATOR_RULES_DOCS,
  ...OPERATOR_DOCS,
  ...ORDERS_DOCS,
  ...PRODUCTS_DOCS,
  ...SHOPPER_ORDERS_DOCS,
  ...WEBHOOKS_DOCS,
};
