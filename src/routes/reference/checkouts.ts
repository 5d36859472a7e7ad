import type { OperationDoc } from "../../openapi/spec.ts";
import { errors, BEARER_ERRORS } from "../../openapi/errors.ts";

/** The OpenAPI description of src/routes/checkouts.ts's operations, by operationId (never in the Worker bundle). */
export const CHECKOUTS_DOCS = {
  createCheckout: {
    summary: "Create a checkout (reserved)",
    description: "401 without a valid token; with one, 501 `not_implemented` with `retry: false`.",
    tag: "Auth",
    auth: "bearer",
    responses: errors(...BEARER_ERRORS, "not_implemented"),
  },
} satisfies Record<string, OperationDoc>;
