import type { OperationDoc } from "../../openapi/spec.ts";
import * as z from "zod/mini";

const HealthSchema = z.strictObject({ status: z.literal("ok") }).register(z.globalRegistry, {
  id: "Health",
  description: "The worker is up. Touches no storage.",
  example: { status: "ok" },
});

/** The OpenAPI description of src/routes/health.ts's operations, by operationId (never in the Worker bundle). */
export const HEALTH_DOCS = {
  getHealth: {
    summary: "Health check",
    description: "Answers without touching any binding: for readiness probes.",
    tag: "Service",
    auth: "none",
    responses: {
      200: { description: "The worker is up.", schema: HealthSchema, headers: ["X-Request-Id", "Cache-Control"] },
    },
  },
} satisfies Record<string, OperationDoc>;
