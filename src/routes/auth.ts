import { Hono } from "../http/hono.ts";
import { noStore } from "../http/no-store.ts";
import type { AppEnv } from "../http/app-env.ts";
import { notImplemented } from "../http/errors.ts";
import { describe } from "../openapi/describe.ts";

/**
 * `POST /auth/login` is reserved and always answers 501, whatever it is sent: the body, its
 * media type and any Authorization header are never read (the Bearer token is presented
 * directly on each request; there is nothing to log in to). Other methods answer 405.
 */
export const auth = new Hono<AppEnv>().use("*", noStore).post("/login", describe("login"), () => {
  throw notImplemented("Login is reserved for a future release. Send your token as Authorization: Bearer <token>.");
});
