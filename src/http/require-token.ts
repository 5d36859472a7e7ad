import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env.ts";
import type { Principal } from "../auth/api.ts";
import { docsUrlFor, readCredential } from "./bearer.ts";
import { type AuthenticationCode, authenticationError } from "./errors.ts";
import { BoundedMemo } from "../memo.ts";
import { hashToken, isDevToken, isWellFormedToken } from "../auth/token.ts";
import { TokenStore } from "../auth/token-store.ts";
import {
  isShopperToken,
  renewShopperToken,
  SHOPPER_RENEW_AFTER_MS,
  verifyShopperToken,
} from "../auth/shopper-token.ts";
import { cartTokensUnconfigured } from "./errors.ts";
import { cartTokenSecrets } from "./secrets.ts";
import { setResponseHeaders } from "./response-headers.ts";

/**
 * The answer header carrying a renewed shopper token (and its expiry, ISO 8601, beside it): set on
 * every successful answer to a shopper token past half its life, or signed with the previous
 * secret during a rotation. Exposed to browsers by the cart's CORS.
 */
export const CART_TOKEN_HEADER = "Cart-Token";
export const CART_TOKEN_EXPIRES_HEADER = "Cart-Token-Expires";

/** The Hono environment of handlers behind `requireToken`. */
export interface AuthedEnv {
  Bindings: AppEnv["Bindings"];
  Variables: AppEnv["Variables"] & { principal: Principal };
}

/**
 * How long this isolate trusts a token record it found valid, without reading KV again. Safe
 * because revocation does not rely on it: the operator tells the holder's cart Durable Object
 * first, and that object refuses the revoked token on its very next cart or checkout request
 * whatever this memo holds; every other use may lag up to 60 s by contract (KV itself does).
 */
export const TOKEN_MEMO_MS = 30_000;

/** Valid tokens' principals by token hash (never the token), with the time they stop being trusted. */
const validTokens = new BoundedMemo<{ principal: Principal; until: number }>(1024 * 1024);

/**
 * Resolves the bearer token to its record (one KV read, or none within TOKEN_MEMO_MS of the last
 * one) and hands handlers a `principal`
 * (token id and holder), never the token. Refuses: no token, a malformed one, an `sf_dev_`
 * token outside development, an unknown or revoked one. KV may lag a revocation by up to 60 s;
 * the cart's Durable Object closes that gap for cart calls (see `Cart.revokeToken`).
 */
export const requireToken = createMiddleware<AuthedEnv>(async (c, next) => {
  const credential = readCredential(c.req.header("authorization"));
  // Only a refusal links the docs: parsing a URL for every accepted request cost more than the memo hit.
  const refuse = (message: string, code: AuthenticationCode = "token_invalid") =>
    authenticationError(docsUrlFor(c.req.url, c.env.DOCS_URL), message, code);
  if (credential.kind === "none") {
    throw refuse("This operation needs a token: send Authorization: Bearer <token>.", "authentication_required");
  }
  if (credential.kind === "unusable") {
    throw refuse("Use the Bearer scheme: Authorization: Bearer <token>.");
  }
  const { token } = credential;
  if (isShopperToken(token)) {
    // Self-contained: the signature and expiry decide, with no storage read. Revocation is the
    // holder's cart object's business (it refuses a revoked holder on the very next request).
    const secrets = cartTokenSecrets(c.env);
    if (!secrets.ok) throw cartTokensUnconfigured(secrets.message);
    const now = Date.now();
    const verdict = await verifyShopperToken(token, secrets, now);
    if (!verdict.ok) {
      throw verdict.code === "token_expired"
        ? refuse("The token has expired: get a new one with POST /carts.", "token_expired")
        : refuse("The token is not valid.");
    }
    const { claims } = verdict;
    c.set("principal", { tokenId: claims.holder, holder: claims.holder });
    await next();
    if (c.res.ok && (verdict.previous || claims.expiresAt - now < SHOPPER_RENEW_AFTER_MS)) {
      const fresh = await renewShopperToken(secrets.current, claims, now);
      setResponseHeaders(c, (headers) => {
        headers.set(CART_TOKEN_HEADER, fresh.token);
        headers.set(CART_TOKEN_EXPIRES_HEADER, new Date(fresh.claims.expiresAt).toISOString());
      });
    }
    return;
  }
  if (!isWellFormedToken(token)) throw refuse("The token is malformed.");
  if (isDevToken(token) && c.env.ENVIRONMENT !== "development") {
    throw refuse("Development tokens are not accepted here.");
  }
  const hash = await hashToken(token);
  const kept = validTokens.get(hash);
  if (kept && kept.until > Date.now()) {
    c.set("principal", kept.principal);
    return next();
  }
  const record = await new TokenStore(c.env.TOKENS).findByHash(hash);
  if (!record) throw refuse("The token is not valid.");
  if (record.revoked_at) throw refuse("The token has been revoked.", "token_revoked");
  const principal = { tokenId: record.id, holder: record.holder };
  validTokens.set(hash, { principal, until: Date.now() + TOKEN_MEMO_MS }, 256);
  c.set("principal", principal);
  await next();
});
