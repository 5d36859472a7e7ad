import { Hono } from "hono";
import * as z from "zod/mini";
import type { AppEnv } from "../http/app-env.ts";
import { describe } from "../openapi/describe.ts";

const HealthSchema = z.strictObject({ status: z.literal("ok") }).register(z.globalRegistry, {
  id: "Health",
  description: "The worker is up. Touches no storage.",
  example: { status: "ok" },
});

/**
 * The cheapest route the worker has: no binding is touched. Readiness probes use it, and the
 * benchmark uses it as the runtime's ceiling.
 */
export const health = new Hono<AppEnv>().get(
  "/",
  describe({
    operationId: "getHealth",
    summary: "Health check",
    description: "Answers without touching any binding: for readiness probes.",
    tag: "Service",
    auth: "none",
    responses: {
      200: { description: "The worker is up.", schema: HealthSchema, headers: ["X-Request-Id", "Cache-Control"] },
    },
  }),
  (c) => {
    c.header("Cache-Control", "no-store");
    return c.json({ status: "ok" });
  },
);
