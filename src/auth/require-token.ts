import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../http/app-env.ts";
import type { Principal } from "./api.ts";
import { authenticationError, docsUrlFor, readCredential } from "./bearer.ts";
import { isDevToken, isWellFormedToken } from "./token.ts";
import { TokenStore } from "./token-store.ts";

/** The Hono environment of handlers behind `requireToken`. */
export interface AuthedEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & { principal: Principal };
}

/**
 * Resolves the bearer token to its record (one KV read) and hands handlers a `principal`
 * (token id and holder), never the token. Refuses: no token, a malformed one, an `sf_dev_`
 * token outside development, an unknown or revoked one. KV may lag a revocation by up to 60 s;
 * the cart's Durable Object closes that gap for cart calls (see `Cart.revokeToken`).
 */
export const requireToken = createMiddleware<AuthedEnv>(async (c, next) => {
  const credential = readCredential(c.req.header("authorization"));
  const docsUrl = docsUrlFor(c.req.url, c.env.DOCS_URL);
  if (credential.kind === "none") {
    throw authenticationError(docsUrl, "This operation needs a token: send Authorization: Bearer <token>.", false);
  }
  if (credential.kind === "unusable") {
    throw authenticationError(docsUrl, "Use the Bearer scheme: Authorization: Bearer <token>.", true);
  }
  const { token } = credential;
  if (!isWellFormedToken(token)) throw authenticationError(docsUrl, "The token is malformed.", true);
  if (isDevToken(token) && c.env.ENVIRONMENT !== "development") {
    throw authenticationError(docsUrl, "Development tokens are not accepted here.", true);
  }
  const record = await new TokenStore(c.env.TOKENS).findByToken(token);
  if (!record) throw authenticationError(docsUrl, "The token is not valid.", true);
  if (record.revoked_at) throw authenticationError(docsUrl, "The token has been revoked.", true);
  c.set("principal", { tokenId: record.id, holder: record.holder });
  await next();
});
