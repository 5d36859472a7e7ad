import { Hono } from "hono";
import * as z from "zod/mini";
import { noStore } from "../http/no-store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { notImplemented } from "../http/errors.ts";
import { describe } from "../openapi/describe.ts";
import { errors } from "../openapi/errors.ts";

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

/**
 * `POST /auth/login` is reserved and always answers 501, whatever it is sent: the body, its
 * media type and any Authorization header are never read (the Bearer token is presented
 * directly on each request; there is nothing to log in to). Other methods answer 405.
 */
export const auth = new Hono<AppEnv>().use("*", noStore).post(
  "/login",
  describe({
    operationId: "login",
    summary: "Log in (reserved)",
    description:
      "Always 501 `not_implemented` with `retry: false`, whatever the body, headers or token: " +
      "the Bearer token is presented directly on each request. Other methods answer 405.",
    tag: "Auth",
    auth: "none",
    body: { schema: LoginRequestSchema, required: false },
    responses: errors("not_implemented"),
  }),
  () => {
    throw notImplemented("Login is reserved for a future release. Send your token as Authorization: Bearer <token>.");
  },
);
