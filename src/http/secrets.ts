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

/** Anything shaped like a token inside a text: its prefix and the token alphabet after it. */
const TOKEN_IN_TEXT = /sf_[A-Za-z0-9_]*/gi;
/** The prefixes of issued tokens (`sf_live_`, `sf_dev_`), wherever they occur in a value. */
const TOKEN_PREFIX = /sf_(live|dev)_/i;

/** Every token-shaped value as `sf_…` and every occurrence of the operator secret as `[redacted]`. */
export function redactSecrets(text: string, env: Env | undefined): string {
  const secret = operatorSecret(env);
  const withoutTokens = text.replace(TOKEN_IN_TEXT, "sf_…");
  return secret === undefined ? withoutTokens : withoutTokens.replaceAll(secret, "[redacted]");
}

/** Whether a value a client sent holds a token or the operator secret (anywhere in it, any case for the token prefix). */
export function holdsCredential(value: string, env: Env | undefined): boolean {
  const secret = operatorSecret(env);
  return TOKEN_PREFIX.test(value) || (secret !== undefined && value.includes(secret));
}
