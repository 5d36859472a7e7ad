/**
 * What the worker must never repeat back, whoever sent it: customer tokens (`sf_…`) and the
 * operator secret. Error messages, cached answers, the request id and the log line go through
 * here, so a credential pasted into the wrong header, path or query parameter stays where it was.
 */

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
/** The prefixes of issued tokens (`sf_live_`, `sf_dev_`), wherever they occur in a value. */
const TOKEN_PREFIX = /sf_(live|dev)_/i;

/** Every token-shaped value as `sf_…` and every occurrence of the operator secret as `[redacted]`. */
export function redactSecrets(text: string, env: Env | undefined): string {
  let out = text.replace(TOKEN_IN_TEXT, "sf_…");
  for (const secret of [operatorSecret(env), secretVar(env, "CHECKOUT_WEBHOOK_SECRET"), stripeWebhookSecret(env)]) {
    if (secret !== undefined) out = out.replaceAll(secret, "[redacted]");
  }
  return out;
}

/** Whether a value a client sent holds a token or the operator secret (anywhere in it, any case for the token prefix). */
export function holdsCredential(value: string, env: Env | undefined): boolean {
  const secret = operatorSecret(env);
  return TOKEN_PREFIX.test(value) || (secret !== undefined && value.includes(secret));
}
