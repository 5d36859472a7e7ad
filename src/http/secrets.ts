/**
 * What the worker must never repeat back, whoever sent it: customer tokens (`sf_…`) and the
 * operator secret. Error messages, cached answers, the request id and the log line go through
 * here, so a credential pasted into the wrong header, path or query parameter stays where it was.
 */

import { DEV_CART_TOKEN_SECRET, MIN_CART_SECRET_BYTES } from "../auth/shopper-token.ts";

/** Shorter secrets are treated as unset: the operator surface stays closed. */
export const MIN_SECRET_LENGTH = 16;

/** OPERATOR_SECRET is a Wrangler secret, so the generated `Env` (vars only) does not name it. */
export function operatorSecret(env: Env | undefined): string | undefined {
  const value = (env as (Env & { OPERATOR_SECRET?: unknown }) | undefined)?.OPERATOR_SECRET;
  return typeof value === "string" && value.length >= MIN_SECRET_LENGTH ? value : undefined;
}

/** The documented development value of CHECKOUT_WEBHOOK_SECRET: refused outside development. */
export const DEV_CHECKOUT_WEBHOOK_SECRET = "dev-checkout-webhook-secret";

function secretVar(env: Env | undefined, name: string): string | undefined {
  const value = (env as (Env & Record<string, unknown>) | undefined)?.[name];
  return typeof value === "string" && value.length >= MIN_SECRET_LENGTH ? value : undefined;
}

/**
 * CHECKOUT_WEBHOOK_SECRET, the key of `Storefront-Signature`. The development value counts only
 * where ENVIRONMENT is `development`: a deployed worker left with it verifies nothing.
 */
export function checkoutWebhookSecret(env: Env | undefined): string | undefined {
  const secret = secretVar(env, "CHECKOUT_WEBHOOK_SECRET");
  if (secret === DEV_CHECKOUT_WEBHOOK_SECRET && env?.ENVIRONMENT !== "development") return undefined;
  return secret;
}

/** STRIPE_WEBHOOK_SECRET, the endpoint's `whsec_…` signing secret for `Stripe-Signature`. */
export function stripeWebhookSecret(env: Env | undefined): string | undefined {
  return secretVar(env, "STRIPE_WEBHOOK_SECRET");
}

/** Anything shaped like a token inside a text: its prefix and the token alphabet after it. */
const TOKEN_IN_TEXT = /sf_[A-Za-z0-9_]*/gi;
/** The prefixes of issued tokens (`sf_live_`, `sf_dev_`, shoppers' `sf_cart_`), wherever they occur in a value. */
const TOKEN_PREFIX = /sf_(live|dev|cart)_/i;

/**
 * The secrets a worker must never repeat: the operator's, the shopper-token signing secrets and
 * the webhook signing secrets (the two checked, and the order events' own).
 */
function secretsOf(env: Env | undefined): string[] {
  return [
    operatorSecret(env),
    secretVar(env, "CART_TOKEN_SECRET"),
    secretVar(env, "CART_TOKEN_SECRET_PREVIOUS"),
    secretVar(env, "CHECKOUT_WEBHOOK_SECRET"),
    stripeWebhookSecret(env),
    secretVar(env, "ORDER_WEBHOOK_SECRET"),
  ].filter((s): s is string => s !== undefined);
}

/** Every token-shaped value as `sf_…` and every occurrence of a secret of the worker as `[redacted]`. */
export function redactSecrets(text: string, env: Env | undefined): string {
  let out = text.replace(TOKEN_IN_TEXT, "sf_…");
  for (const secret of secretsOf(env)) out = out.replaceAll(secret, "[redacted]");
  return out;
}

/** Whether a value a client sent holds a token or a secret of the worker (anywhere in it, any case for the token prefix). */
export function holdsCredential(value: string, env: Env | undefined): boolean {
  return TOKEN_PREFIX.test(value) || secretsOf(env).some((secret) => value.includes(secret));
}

/** What signs and checks shopper tokens, or why this worker may not do either. */
export type CartTokenSecrets = { ok: true; current: string; previous?: string } | { ok: false; message: string };

/**
 * CART_TOKEN_SECRET (and CART_TOKEN_SECRET_PREVIOUS during a rotation), each at least 32 bytes.
 * A deployed worker (ENVIRONMENT not `development`) refuses the published development value:
 * anyone could sign tokens with it. A previous secret that is unusable is ignored, not fatal.
 */
export function cartTokenSecrets(env: Env): CartTokenSecrets {
  const e = env as Env & { CART_TOKEN_SECRET?: unknown; CART_TOKEN_SECRET_PREVIOUS?: unknown };
  const development = env.ENVIRONMENT === "development";
  const usable = (value: unknown): value is string =>
    typeof value === "string" &&
    new TextEncoder().encode(value).length >= MIN_CART_SECRET_BYTES &&
    (development || value !== DEV_CART_TOKEN_SECRET);
  if (!usable(e.CART_TOKEN_SECRET)) {
    return {
      ok: false,
      message:
        "Shopper tokens are not configured on this server: its operator must set CART_TOKEN_SECRET " +
        "(wrangler secret put CART_TOKEN_SECRET, at least 32 bytes, not the development value).",
    };
  }
  return {
    ok: true,
    current: e.CART_TOKEN_SECRET,
    ...(usable(e.CART_TOKEN_SECRET_PREVIOUS) ? { previous: e.CART_TOKEN_SECRET_PREVIOUS } : {}),
  };
}

/**
 * Whether a value could be a credential whatever its prefix (issue 33: a token's secret part sent
 * without `sf_live_` was echoed as an X-Request-Id and logged). Split at dots, any part that is:
 * - 20+ characters of the base62/base64url alphabet holding both upper- and lower-case letters
 *   (a random base62 or base64 secret, such as a token's 44-character secret part), or
 * - holding a run of 33+ letters and digits mixing both (a hex or base36 secret longer than a
 *   128-bit trace id: `openssl rand -hex 32`; `_` and `-` end a run, so `req_<32 hex>` is not), or
 * - the value has a JWT's shape (three base64url parts, the first a JSON header: `eyJ…`).
 * Ids in one case or hex up to 32 digits (UUIDs, W3C trace ids, this API's own `req_…`) are not.
 */
export function looksLikeCredential(value: string): boolean {
  const parts = value.split(".");
  if (parts.length === 3 && /^eyJ[A-Za-z0-9_-]*$/.test(parts[0] ?? "")) return true;
  return parts.some(
    (part) =>
      (part.length >= 20 && /[a-z]/.test(part) && /[A-Z]/.test(part)) ||
      (part.match(/[A-Za-z0-9]+/g) ?? []).some((run) => run.length >= 33 && /[A-Za-z]/.test(run) && /[0-9]/.test(run)),
  );
}
