import type { Context } from "hono";
import { IdempotencyKeySchema } from "../cart/api.ts";
import { invalidRequest } from "../http/errors.ts";

/** The request's Idempotency-Key, if sent; one that is not 1–255 printable ASCII characters is 400. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header("idempotency-key");
  if (key !== undefined && !IdempotencyKeySchema.safeParse(key).success) {
    throw invalidRequest(
      "parameter_invalid",
      "Idempotency-Key must be 1–255 printable ASCII characters.",
      "Idempotency-Key",
    );
  }
  return key;
}
