import { randomBase62 } from "../random.ts";
import { sha256Hex } from "../sha256.ts";
/**
 * Customer bearer tokens: what they look like, how they are made and how they are stored.
 * Only `hashToken(token)` ever reaches storage; the token itself exists once, in the answer to
 * the operator who issued it.
 */

/** Live tokens: issued by the operator, valid in every environment. */
export const LIVE_PREFIX = "sf_live_";
/** Development tokens: seeded by `npm run dev`, refused by any worker not in development. */
export const DEV_PREFIX = "sf_dev_";

/** 44 base62 characters carry 44 × log2(62) ≈ 262 bits, above the contract's 256. */
const SECRET_LENGTH = 44;
/** Anything else is malformed and answers 401 without a storage read. */
const TOKEN_SHAPE = /^sf_(live|dev)_[A-Za-z0-9_]{8,100}$/;

/** A new live token. Shown once to the operator, never stored. */
export function newToken(): string {
  return `${LIVE_PREFIX}${randomBase62(SECRET_LENGTH)}`;
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const encoder = new TextEncoder();

/**
 * `length` base62 characters from HMAC-SHA256(secret, label NUL message NUL counter), rejection
 * sampled like randomBase62: to anyone without the secret they are as unpredictable as random
 * ones, and the same inputs give them again.
 */
async function derivedBase62(secret: string, label: string, message: string, length: number): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "sign",
  ]);
  let out = "";
  for (let counter = 0; out.length < length; counter++) {
    const block = new Uint8Array(
      await crypto.subtle.sign("HMAC", key, encoder.encode(`${label}\u0000${message}\u0000${counter}`)),
    );
    for (const byte of block) if (byte < 248 && out.length < length) out += BASE62[byte % 62];
  }
  return out;
}

/**
 * The token and id a rotation of `tokenId` under Idempotency-Key `key` issues. They are derived
 * (keyed by the operator secret) rather than random so that a retry of the rotation can answer the
 * same new token again while only its hash is stored: nothing else could replay it.
 */
export async function rotationToken(
  operatorSecret: string,
  tokenId: string,
  key: string,
): Promise<{ token: string; id: string }> {
  const message = `${tokenId}\u0000${key}`;
  return {
    token: `${LIVE_PREFIX}${await derivedBase62(operatorSecret, "rotate-token", message, SECRET_LENGTH)}`,
    id: `tok_${await derivedBase62(operatorSecret, "rotate-id", message, 20)}`,
  };
}

/** A token id (`tok_…`): what logs, lists and revocation refer to instead of the token. */
export function newTokenId(): string {
  return `tok_${randomBase62(20)}`;
}

/** A holder id (`hld_…`): names the cart, and survives rotation of the holder's token. */
export function newHolderId(): string {
  return `hld_${randomBase62(20)}`;
}

/** Whether `token` has the shape of a token at all (prefix, alphabet, length). */
export function isWellFormedToken(token: string): boolean {
  return TOKEN_SHAPE.test(token);
}

/** Whether `token` is a development token, which only a development worker accepts. */
export function isDevToken(token: string): boolean {
  return token.startsWith(DEV_PREFIX);
}

/** Hex SHA-256 of the token: the only form in which a token is ever stored. */
export async function hashToken(token: string): Promise<string> {
  return sha256Hex(token);
}
