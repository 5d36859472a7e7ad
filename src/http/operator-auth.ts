import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env.ts";
import { docsUrlFor, readCredential } from "./bearer.ts";
import { authenticationError } from "./errors.ts";
import { operatorSecret } from "./secrets.ts";
import { sha256 } from "../sha256.ts";

/** Compares through SHA-256 digests so the comparison's time says nothing about the secret. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const [a, b] = await Promise.all([sha256(given), sha256(expected)]);
  return crypto.subtle.timingSafeEqual(a, b);
}

/**
 * Guards `/api/v1/operator/*` with `Authorization: Bearer <OPERATOR_SECRET>`. The token store
 * is never consulted, and anything shaped like a customer token (`sf_…`) is refused before the
 * comparison, so a customer token cannot reach this surface. With no secret configured the
 * surface is closed.
 */
export const requireOperator = createMiddleware<AppEnv>(async (c, next) => {
  const credential = readCredential(c.req.header("authorization"));
  const docsUrl = docsUrlFor(c.req.url, c.env.DOCS_URL);
  if (credential.kind === "none") {
    throw authenticationError(
      docsUrl,
      "The operator surface needs Authorization: Bearer <operator secret>.",
      "authentication_required",
    );
  }
  const secret = operatorSecret(c.env);
  const accepted =
    credential.kind === "bearer" &&
    !credential.token.startsWith("sf_") &&
    secret !== undefined &&
    (await sameSecret(credential.token, secret));
  if (!accepted) throw authenticationError(docsUrl, "The operator secret is not valid.", "token_invalid");
  await next();
});
