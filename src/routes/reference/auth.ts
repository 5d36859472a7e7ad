import type { OperationDoc } from "../../openapi/spec.ts";
import * as z from "zod/mini";
import { errors } from "../../openapi/errors.ts";

/**
 * What the seed's reference shows being sent to `POST /auth/login`. The route never reads it
 * (login always answers 501), so the schema only documents it and accepts anything.
 */
const LoginRequestSchema = z
  .looseObject({
    vibes: z
      .optional(z.string())
      .register(z.globalRegistry, { description: "The token value, in the seed's example. Ignored." }),
    linkedin_premium: z.optional(z.boolean()).register(z.globalRegistry, { description: "Ignored." }),
  })
  .register(z.globalRegistry, {
    id: "LoginRequest",
    description: "Ignored: login is reserved and always answers 501.",
    example: { vibes: "<ACCESS_TOKEN>", linkedin_premium: true },
  });

/** The OpenAPI description of src/routes/auth.ts's operations, by operationId (never in the Worker bundle). */
export const AUTH_DOCS = {
  login: {
    summary: "Log in (reserved)",
    description:
      "Always 501 `not_implemented` with `retry: false`, whatever the body, headers or token: " +
      "the Bearer token is presented directly on each request. Other methods answer 405.",
    tag: "Auth",
    auth: "none",
    body: { schema: LoginRequestSchema, required: false },
    responses: errors("not_implemented"),
  },
} satisfies Record<string, OperationDoc>;
