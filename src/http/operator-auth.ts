import { createMiddleware } from "hono/factory";
import type { AppEnv } from "./app-env.ts";
import { docsUrlFor, readCredential } from "./bearer.ts";
import { clientAddressKey } from "./client-address.ts";
import { ApiError, authenticationError } from "./errors.ts";
import { operatorSecret } from "./secrets.ts";
import { sha256 } from "../sha256.ts";

/** The configured secret's digest, made once per isolate (again only when the secret changes). */
let expectedDigest: { secret: string; digest: ArrayBuffer } | undefined;

/** Compares through SHA-256 digests so the comparison's time says nothing about the secret. */
async function sameSecret(given: string, expected: string): Promise<boolean> {
  const digest = expectedDigest?.secret === expected ? expectedDigest.digest : await sha256(expected);
  expectedDigest = { secret: expected, digest };
  return crypto.subtle.timingSafeEqual(await sha256(given), digest);
}

/**
 * Guards `/api/v1/operator/*` with `Authorization: Bearer <OPERATOR_SECRET>`. The token store
 * is never consulted, and anything shaped like a customer token (`sf_…`) is refused before the
 * comparison, so a customer token cannot reach this surface. With no secret configured the
 * surface is closed. Wrong secrets are throttled per client address (issue 33: 400 guesses took
 * 3.5 s; an IPv6 address by its /64, issue 42): past OPERATOR_AUTH_LIMITER's 30 a minute, 429
 * with Retry-After.
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
  // Cloudflare (and wrangler dev) always set it; a request without it (a service binding, a test
  // calling the worker directly) is not throttled.
  const address = clientAddressKey(c);
  if (address !== undefined && blockedUntil(address) > Date.now()) throw tooManyGuesses();
  const secret = operatorSecret(c.env);
  const accepted =
    credential.kind === "bearer" &&
    !credential.token.startsWith("sf_") &&
    secret !== undefined &&
    (await sameSecret(credential.token, secret));
  if (!accepted) {
    if (address !== undefined) {
      const { success } = await c.env.OPERATOR_AUTH_LIMITER.limit({ key: address });
      if (!success) {
        block(address);
        throw tooManyGuesses();
      }
    }
    throw authenticationError(docsUrl, "The operator secret is not valid.", "token_invalid");
  }
  await next();
});

/** The limiter's period (wrangler.toml `OPERATOR_AUTH_LIMITER`, `simple.period`): how long an address stays refused. */
const PERIOD_SECONDS = 60;

/**
 * Addresses this isolate refuses until a time (ms). The limiter counts wrong secrets only, so a
 * right one costs nothing; but once an address is over the limit, every attempt from it is
 * refused before the comparison, the right secret included, or a guesser would still learn which
 * guess was right (200 among 429s). Another isolate compares one more guess before it refuses too.
 */
const blocked = new Map<string, number>();
const MAX_BLOCKED = 10_000;

function blockedUntil(address: string): number {
  return blocked.get(address) ?? 0;
}

function block(address: string): void {
  if (blocked.size >= MAX_BLOCKED) blocked.clear();
  blocked.set(address, Date.now() + PERIOD_SECONDS * 1000);
}

function tooManyGuesses(): ApiError {
  return new ApiError(
    429,
    {
      type: "rate_limit_error",
      code: "rate_limited",
      message:
        "Too many wrong operator secrets from this address. Every attempt from it is refused until the " +
        "Retry-After delay has passed.",
    },
    { "Retry-After": String(PERIOD_SECONDS), "Cache-Control": "no-store" },
  );
}
